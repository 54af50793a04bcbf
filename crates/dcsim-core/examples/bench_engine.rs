//! Engine benchmark (not a test): one simulated second of DCTCP, N long-lived flows (N = 10 by
//! default), one sender host each, 10 Gbps bottleneck, 40 Gbps access links, 100 us RTT, K = 65,
//! g = 1/16, default metrics. Prints wall time, events/s, simulated packets per wall second and
//! peak memory, plus a same-machine baseline: a bare binary-heap event loop pushing and popping
//! the same number of events, so the figure can be read as a ratio.
//!
//! The machine is shared (other builds run beside it), so the engine run and the bare loop are
//! each repeated REPEAT times, interleaved, and the best of each is kept: the ratio of the bests
//! is what the load disturbs least.
//!
//! TRACE, a number k, traces only the first k flows' goodput and window series
//! (`metrics.trace_flows`); without it every flow is traced (or as the given spec says). SERIES
//! `none` samples no series during the run (TRACE 0 and one queue and goodput sample at the end):
//! the work of a simulator that records nothing, as ns-3's `Simulator::Run` in `bench_ns3.py`.
//! FLOWS may instead be the
//! path of an engine spec (`.json`, e.g. `dcsim.Scenario.to_engine_json()`, which carries the
//! scenario layer's default metrics: the first 100 flows traced, intervals fitted to the memory
//! budget); DURATION_S is then the spec's.
//!
//! Run: cargo run --release -p dcsim-core --example bench_engine [-- DURATION_S [FLOWS|SPEC.json [REPEAT [TRACE [SERIES]]]]]

use std::time::Instant;

use dcsim_core::scenario::*;
use dcsim_core::Sim;

#[path = "common/bare_heap.rs"]
mod bare_heap;
use bare_heap::bare_heap_loop;

fn spec(duration_s: f64, n: usize, trace: Option<usize>) -> Spec {
    let flows =
        (0..n).map(|i| FlowSpec::long_lived(format!("s{i}"), "r", ProtocolSpec::dctcp(1.0 / 16.0, 1.0))).collect();
    Spec {
        seed: 1,
        duration_ps: (duration_s * 1e12) as u64,
        warmup_ps: 0,
        packet_bytes: 1500,
        header_bytes: 40,
        topology: TopologySpec::Dumbbell {
            senders: n as u32,
            bottleneck_bps: 10_000_000_000,
            access_bps: 40_000_000_000,
            rtt_ps: vec![100_000_000],
            bottleneck_queue: QueueSpec {
                capacity: Amount::Packets(1000),
                aqm: AqmSpec::threshold(Amount::Packets(65)),
            },
            reverse_queue: None,
        },
        flows,
        workloads: vec![],
        metrics: MetricsSpec { trace_flows: trace.map(|k| (0..k.min(n) as u64).collect()), ..MetricsSpec::default() },
        host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
        host_jitter_ps: 0,
        l2: None,
        partitions: 1,
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
    let arg = |i: usize| std::env::args().nth(i);
    let duration_s: f64 = arg(1).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let spec_file: Option<String> = arg(2).filter(|a| a.ends_with(".json"));
    let given: Option<Spec> = spec_file.map(|path| {
        let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        Spec::from_json(&json).unwrap_or_else(|e| panic!("{path}: {e}"))
    });
    let n: usize = match &given {
        Some(g) => g.flows.len(),
        None => arg(2).and_then(|a| a.parse().ok()).unwrap_or(10),
    };
    let duration_s = given.as_ref().map_or(duration_s, |g| g.duration_ps as f64 / 1e12);
    let repeat: usize = arg(3).and_then(|a| a.parse().ok()).unwrap_or(1).max(1);
    let trace: Option<usize> = arg(4).and_then(|a| a.parse().ok());
    let no_series = match arg(5).as_deref() {
        None | Some("default") => false,
        Some("none") => true,
        Some(other) => {
            eprintln!("SERIES must be `default` or `none`, got {other:?}");
            std::process::exit(2);
        }
    };
    let (mut wall, mut base) = (f64::INFINITY, f64::INFINITY);
    let mut last = None;
    for _ in 0..repeat {
        drop(last.take()); // one world in memory at a time (peak RSS is the run's own)
        let t0 = Instant::now();
        let s = match (&given, trace) {
            (Some(g), Some(k)) => {
                let mut g = g.clone();
                g.metrics.trace_flows = Some((0..k.min(n) as u64).collect());
                g
            }
            (Some(g), None) => g.clone(),
            (None, _) => spec(duration_s, n, trace),
        };
        let s = if no_series {
            let mut s = s;
            s.metrics.trace_flows = Some(vec![]);
            s.metrics.queue_interval_ps = s.duration_ps;
            s.metrics.throughput_interval_ps = s.duration_ps;
            s.metrics.cwnd_interval_ps = s.duration_ps;
            s
        } else {
            s
        };
        let mut sim = match Sim::new(s) {
            Ok(s) => s,
            Err(e) => {
                println!("rejected={e}");
                std::process::exit(2);
            }
        };
        sim.run().expect("run");
        wall = wall.min(t0.elapsed().as_secs_f64());
        base = base.min(bare_heap_loop(sim.counters().events, 64));
        last = Some(sim);
    }
    let mut sim = last.expect("one run");
    let tables = sim.results().expect("results");
    let c = sim.counters();
    let ports = tables.iter().find(|t| t.name == "ports").unwrap();
    let b = ports.bool("monitored").iter().position(|&m| m).unwrap();
    println!(
        "scenario: DCTCP N={n}, 10 Gbps bottleneck, 40 Gbps access, RTT 100 us, K=65, g=1/16, {duration_s} s simulated, best of {repeat}"
    );
    println!("flows={n}");
    let traced = sim.spec().metrics.trace_flows.as_ref().map_or(n, |t| t.len());
    println!("traced_flows={traced}");
    println!("series_sampled={}", u8::from(!no_series));
    println!("cwnd_interval_ps={}", sim.spec().metrics.cwnd_interval_ps);
    println!("wall_s={wall:.4}");
    println!("events={}", c.events);
    println!("ns_per_event={:.2}", wall * 1e9 / c.events as f64);
    println!("events_per_s={:.3e}", c.events as f64 / wall);
    println!("packets_per_wall_s={:.3e}", c.sent_pkts as f64 / wall);
    println!("sim_s_per_wall_s={:.3}", duration_s / wall);
    println!("peak_rss_mb={:.1}", peak_rss_mb());
    println!("live_flow_states_peak={}", sim.peak_active_flows());
    println!("utilization={:.4}", ports.f64("utilization")[b]);
    println!("bottleneck_marks={}", ports.u64("marks")[b]);
    println!("bottleneck_q_mean_pkt={:.2}", ports.f64("q_mean_pkt")[b]);
    println!("baseline_bare_heap_s={base:.4}");
    println!("ratio_engine_over_bare_heap={:.3}", wall / base);
}
