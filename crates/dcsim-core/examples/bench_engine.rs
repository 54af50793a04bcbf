//! Engine benchmark (not a test): one simulated second of DCTCP, N = 10, 10 Gbps bottleneck,
//! 40 Gbps access links, 100 us RTT, K = 65, g = 1/16. Prints wall time, events/s, simulated
//! packets per wall second and peak memory, plus a same-machine baseline: a bare binary-heap
//! event loop pushing and popping the same number of events, so the figure can be read as a ratio.
//!
//! Run: cargo run --release -p dcsim-core --example bench_engine [-- DURATION_S]

use std::time::Instant;

use dcsim_core::scenario::*;
use dcsim_core::Sim;

#[path = "common/bare_heap.rs"]
mod bare_heap;
use bare_heap::bare_heap_loop;

fn spec(duration_s: f64) -> Spec {
    let flows = (0..10)
        .map(|i| FlowSpec::long_lived(format!("s{i}"), "r", ProtocolSpec::Dctcp { g: 1.0 / 16.0, alpha_init: 1.0 }))
        .collect();
    Spec {
        seed: 1,
        duration_ps: (duration_s * 1e12) as u64,
        warmup_ps: 0,
        packet_bytes: 1500,
        header_bytes: 40,
        topology: TopologySpec::Dumbbell {
            senders: 10,
            bottleneck_bps: 10_000_000_000,
            access_bps: 40_000_000_000,
            rtt_ps: vec![100_000_000],
            bottleneck_queue: QueueSpec {
                capacity: Amount::Packets(1000),
                aqm: AqmSpec::Threshold { k: Amount::Packets(65) },
            },
            reverse_queue: None,
        },
        flows,
        workloads: vec![],
        metrics: MetricsSpec::default(),
        host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
        l2: None,
    }
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.split_whitespace().nth(1).unwrap_or("0").parse::<f64>().unwrap_or(0.0))
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let duration_s: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let t0 = Instant::now();
    let mut sim = Sim::new(spec(duration_s)).expect("spec");
    sim.run().expect("run");
    let wall = t0.elapsed().as_secs_f64();
    let tables = sim.results().expect("results");
    let c = sim.counters();
    let ports = tables.iter().find(|t| t.name == "ports").unwrap();
    let b = ports.bool("monitored").iter().position(|&m| m).unwrap();
    let data_pkts = ports.u64("tx_pkts").get(b).copied().unwrap_or(0);
    let _ = data_pkts;
    let base = bare_heap_loop(c.events, 64);
    println!(
        "scenario: DCTCP N=10, 10 Gbps bottleneck, 40 Gbps access, RTT 100 us, K=65, g=1/16, {duration_s} s simulated"
    );
    println!("wall_s={wall:.3}");
    println!("events={}", c.events);
    println!("events_per_s={:.3e}", c.events as f64 / wall);
    println!("packets_per_wall_s={:.3e}", c.sent_pkts as f64 / wall);
    println!("sim_s_per_wall_s={:.3}", duration_s / wall);
    println!("peak_rss_mb={:.1}", peak_rss_mb());
    println!("utilization={:.4}", ports.f64("utilization")[b]);
    println!("baseline_bare_heap_s={base:.3}");
    println!("ratio_engine_over_bare_heap={:.2}", wall / base);
}
