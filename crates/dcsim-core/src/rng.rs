//! One seeded RNG stream per component, derived from the scenario seed.
//!
//! Streams are PCG64 (rand_pcg), seeded from SplitMix64 of (scenario seed, component id), so adding a
//! component never shifts another component's random numbers.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

pub type Rng = Pcg64Mcg;

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Component kinds, so that port 3 and flow 3 get different streams.
#[derive(Clone, Copy)]
pub enum Stream {
    Port = 1,
    Flow = 2,
    /// Flow-arrival generators (`workload.rs`).
    Workload = 3,
    /// L2 rate sources (their reaction points' jitter).
    L2Source = 4,
    /// L2 congestion points (sampling, feedback latency), by port.
    L2Cp = 5,
    /// L2 Poisson arrivals of short flows, by `l2.poisson` entry.
    L2Workload = 6,
}

/// The RNG stream of component `id` of kind `kind` under scenario `seed`.
pub fn stream(seed: u64, kind: Stream, id: u64) -> Rng {
    let s = splitmix64(splitmix64(seed) ^ splitmix64((kind as u64) << 56 ^ id));
    Rng::seed_from_u64(s)
}
