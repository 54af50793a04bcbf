//! The benchmarks' same-run baseline (shared by the `bench_engine` and `bench_l2` examples).

use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::Instant;

/// The cheapest discrete-event loop: `n` events, each a pop and a push on a binary heap of about
/// `live` entries (xorshift-spread times). Returns its wall time, s.
pub fn bare_heap_loop(n: u64, live: u64) -> f64 {
    let t0 = Instant::now();
    let mut h = BinaryHeap::with_capacity(live as usize);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..live {
        h.push(std::cmp::Reverse((i, i)));
    }
    for i in 0..n {
        let std::cmp::Reverse((t, _)) = h.pop().unwrap();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        h.push(std::cmp::Reverse((t + 1 + (x % 2000), i)));
    }
    black_box(h.len());
    t0.elapsed().as_secs_f64()
}
