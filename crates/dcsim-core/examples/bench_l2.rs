//! L2 engine benchmark (issue 9; not a test): the DSM paper's single bottleneck (5 rate sources
//! S_i -> R_i through C1 -> C2, 1000 B frames, 128 KB drop-tail buffer, a 300 us loop, every source
//! from line rate), engine only. Prints wall time, events, frames through the bottleneck, and a
//! same-machine baseline measured in the same run: a bare binary-heap event loop with one event per
//! bottleneck frame (the least any per-frame discrete-event simulator does).
//!
//! Run: cargo run --release -p dcsim-core --example bench_l2 -- [qcn|dsm|smcc] [rate_gbps] [seconds]
//! (or `-- baseline N`: the bare loop alone with N events, best of 3).
use std::time::Instant;

use dcsim_core::scenario::Spec;
use dcsim_core::Sim;

#[path = "common/bare_heap.rs"]
mod bare_heap;
use bare_heap::bare_heap_loop;

fn spec(scheme: &str, rate_bps: u64, duration_s: f64) -> Spec {
    let us = 1_000_000u64;
    let base_ps = 1000 * 8 * 1_000_000_000_000 / rate_bps + 2 * us + 64 * 8 * 1_000_000_000_000 / rate_bps;
    let hosts: Vec<_> = (1..=5)
        .flat_map(|i| {
            [
                serde_json::json!({"name": format!("S{i}"), "at": "C1"}),
                serde_json::json!({"name": format!("R{i}"), "at": "C2"}),
            ]
        })
        .collect();
    let j = serde_json::json!({
        "seed": 1, "duration_ps": (duration_s * 1e12) as u64, "warmup_ps": (duration_s * 1e11) as u64,
        "packet_bytes": 1000, "header_bytes": 40,
        "topology": {"kind": "parking_lot", "switches": 2, "rate_bps": rate_bps, "delay_ps": us,
                     "host_rate_bps": rate_bps, "host_delay_ps": us, "hosts": hosts,
                     "queue": {"capacity": {"bytes": 128_000}, "aqm": {"kind": "drop_tail"}}},
        "flows": [],
        "l2": {"scheme": {"kind": scheme}, "frame_bytes": 1000,
               "feedback_latency": {"kind": "fixed", "ps": 300 * us - base_ps},
               "sources": (1..=5).map(|i| serde_json::json!({"src": format!("S{i}"), "dst": format!("R{i}")})).collect::<Vec<_>>(),
               "rate_interval_ps": 100 * us},
    });
    serde_json::from_value(j).expect("spec")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(|s| s.as_str()) == Some("baseline") {
        // `bench_l2 baseline N`: the bare heap loop alone, N events (best of 3).
        let n: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
        let best = (0..3).map(|_| bare_heap_loop(n, 32)).fold(f64::INFINITY, f64::min);
        println!("baseline_bare_heap_s={best:.4}");
        return;
    }
    let scheme = args.get(1).map_or("qcn", |s| s.as_str()).to_string();
    let gbps: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(10);
    let duration_s: f64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let t0 = Instant::now();
    let mut sim = Sim::new(spec(&scheme, gbps * 1_000_000_000, duration_s)).expect("spec");
    sim.run().expect("run");
    let tables = sim.results().expect("results");
    let wall = t0.elapsed().as_secs_f64();
    let c = sim.counters();
    let ports = tables.iter().find(|t| t.name == "ports").unwrap();
    let b = ports.bool("monitored").iter().position(|&m| m).unwrap();
    let frames = ports.u64("tx_pkts")[b];
    let base = bare_heap_loop(frames, 32);
    println!("scheme={scheme} rate_gbps={gbps} simulated_s={duration_s}");
    println!("wall_s={wall:.4}");
    println!("events={}", c.events);
    println!("frames={frames}");
    println!("utilization={:.4}", ports.f64("utilization")[b]);
    println!("baseline_bare_heap_s={base:.4}");
    println!("ratio_engine_over_bare_heap={:.2}", wall / base);
}
