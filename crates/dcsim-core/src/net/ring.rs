//! A FIFO ring buffer of `Copy` entries for the ports' hot path: a power-of-two capacity, so an
//! index is one add and one mask (std's `VecDeque` wraps with a compare and a subtraction and
//! checks more on every access), and no per-entry drop.

use std::cell::Cell;
use std::ops::{Index, IndexMut};

thread_local! {
    /// Bytes by which the rings have grown on this thread so far (a ring never shrinks). A world
    /// runs on one thread at a time, alone there, so what this grows by while it runs is its own
    /// rings' growth (`World::track_growth`); a count over the process had made a world's memory
    /// checks, and so where a run stopped, depend on the runs beside it (a partitioned run's
    /// worlds: a review found two stop instants in six runs of one spec).
    static GROWN_BYTES: Cell<u64> = const { Cell::new(0) };
}

/// See [`GROWN_BYTES`].
pub fn grown_bytes() -> u64 {
    GROWN_BYTES.with(Cell::get)
}

#[derive(Clone, Debug)]
pub struct Ring<T: Copy + Default> {
    /// Storage; its length is the capacity (0, or a power of two). Entries outside
    /// [head, head + len) (mod capacity) are stale copies.
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Default for Ring<T> {
    fn default() -> Self {
        Ring { buf: Vec::new(), head: 0, len: 0 }
    }
}

impl<T: Copy + Default> Ring<T> {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entries it has room for (its memory: this many `T`).
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & (self.buf.len() - 1)
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            None
        } else {
            Some(&self.buf[self.head])
        }
    }

    /// Address of entry `i`, if any (for a prefetch).
    #[inline]
    pub fn ptr(&self, i: usize) -> Option<*const T> {
        (i < self.len).then(|| self.buf[self.slot(i)..].as_ptr())
    }

    /// Address the next `push_back` writes, if it needs no growth (for a prefetch).
    #[inline]
    pub fn back_ptr(&self) -> Option<*const T> {
        (self.len < self.buf.len()).then(|| self.buf[self.slot(self.len)..].as_ptr())
    }

    /// Append `item`. The growth path takes no part of it: when it did (`grow(item)`, to pad the
    /// new storage), the compiler built each item on the stack by its fields and then copied it
    /// with 16-byte loads across those narrower stores, which the store buffer cannot forward:
    /// the two pushes of `Port::enqueue` held ~13 % of an N = 10 run (`perf annotate`).
    #[inline]
    pub fn push_back(&mut self, item: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let s = self.slot(self.len);
        self.buf[s] = item;
        self.len += 1;
    }

    /// Double the capacity (at least 2), entries laid out from index 0; `T::default()` pads the
    /// rest. Starting small matters with thousands of ports: a host's NIC rarely holds more than
    /// a few packets, and a ring no larger than its contents keeps its head within a cache line
    /// or two instead of cycling through many.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (2 * self.buf.len()).max(2);
        GROWN_BYTES.with(|g| g.set(g.get() + ((cap - self.buf.len()) * std::mem::size_of::<T>()) as u64));
        let mut buf = Vec::with_capacity(cap);
        buf.extend((0..self.len).map(|i| self[i]));
        buf.resize(cap, T::default());
        self.buf = buf;
        self.head = 0;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = self.buf[self.head];
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        Some(item)
    }

    #[inline]
    pub fn back(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.slot(self.len - 1)])
    }

    #[inline]
    pub fn pop_back(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.buf[self.slot(self.len)])
    }

    /// Remove entry `i`; the entries behind it move forward by one.
    pub fn remove(&mut self, i: usize) -> Option<T> {
        if i >= self.len {
            return None;
        }
        let item = self[i];
        for k in i..self.len - 1 {
            self[k] = self[k + 1];
        }
        self.len -= 1;
        Some(item)
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |i| &self.buf[self.slot(i)])
    }
}

impl<T: Copy + Default> Index<usize> for Ring<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        debug_assert!(i < self.len);
        &self.buf[self.slot(i)]
    }
}

impl<T: Copy + Default> IndexMut<usize> for Ring<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len);
        let s = self.slot(i);
        &mut self.buf[s]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_like_a_vecdeque() {
        let mut r = Ring::new();
        let mut d = VecDeque::new();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for step in 0..50_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 7 {
                0..=2 => {
                    r.push_back(step);
                    d.push_back(step);
                }
                3 | 4 => assert_eq!(r.pop_front(), d.pop_front()),
                5 if !d.is_empty() => {
                    let i = (x >> 8) as usize % d.len();
                    assert_eq!(r.remove(i), d.remove(i));
                }
                _ if !d.is_empty() => {
                    let i = (x >> 8) as usize % d.len();
                    r[i] += 1;
                    d[i] += 1;
                }
                _ => {}
            }
            assert_eq!(r.len(), d.len());
            assert_eq!(r.front(), d.front());
            if step % 97 == 0 {
                assert!(r.iter().eq(d.iter()));
            }
        }
    }
}
