//! Run one engine spec (JSON, e.g. `dcsim.Scenario.to_engine_json()`) to its end and print the
//! engine's counters and wall time: the engine alone, for profilers (perf, cachegrind) and A/B
//! timing of engine changes. Not a test.
//!
//! DCSIM_HEAP_ONLY=1 puts every event through the heap (no time wheel), for A/B timing;
//! DCSIM_THREADS=n runs a partitioned spec's worlds on n threads (the results are the same).
//!
//! Run: cargo run --release -p dcsim-core --example run_spec -- SPEC.json

use std::time::Instant;

use dcsim_core::metrics::Column;
use dcsim_core::scenario::Spec;
use dcsim_core::Sim;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_spec SPEC.json");
        std::process::exit(2);
    };
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let spec = Spec::from_json(&json).unwrap_or_else(|e| panic!("{path}: {e}"));
    let t0 = Instant::now();
    let mut sim = Sim::new(spec).unwrap_or_else(|e| panic!("{path}: {e}"));
    if std::env::var_os("DCSIM_HEAP_ONLY").is_some() {
        sim.use_heap_only();
    }
    if let Some(n) = std::env::var("DCSIM_THREADS").ok().and_then(|v| v.parse().ok()) {
        sim.set_threads(n);
    }
    println!("partitions={} threads={}", sim.partitions(), sim.threads());
    let built = t0.elapsed().as_secs_f64();
    println!("time_wheel={}", sim.uses_time_wheel());
    sim.run().expect("run");
    let wall = t0.elapsed().as_secs_f64() - built;
    println!("time_wheel_at_end={}", sim.uses_time_wheel());
    let c = sim.counters();
    println!("build_s={built:.4}");
    println!("wall_s={wall:.4}");
    println!("events={}", c.events);
    println!("ns_per_event={:.2}", wall * 1e9 / c.events as f64);
    println!("sent_pkts={} delivered_pkts={} dropped_pkts={}", c.sent_pkts, c.delivered_pkts, c.dropped_pkts);
    println!("peak_live_flows={}", sim.peak_active_flows());
    // A fingerprint of every result table (FNV-1a over names and values' bits): equal before and
    // after an engine change that must not change any result.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    for t in sim.results().expect("results") {
        eat(t.name.as_bytes());
        for (name, c) in &t.columns {
            eat(name.as_bytes());
            match c {
                Column::F64(v) => v.iter().for_each(|x| eat(&x.to_bits().to_le_bytes())),
                Column::U64(v) => v.iter().for_each(|x| eat(&x.to_le_bytes())),
                Column::Bool(v) => v.iter().for_each(|&x| eat(&[x as u8])),
                Column::Str(v) => v.iter().for_each(|x| eat(x.as_bytes())),
            }
        }
    }
    println!("fingerprint={h:016x}");
}
