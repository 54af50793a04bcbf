//! Memory of generated flows: a finished flow's transport state is freed (one result row stays),
//! so the state a long run holds is bounded by the flows running at once, not by the flows it
//! generated.

mod common;
use common::*;
use dcsim_core::scenario::*;
use dcsim_core::workload::{ClassSpec, SizeSpec, WorkloadSpec};
use dcsim_core::Sim;

/// A Poisson workload of DCTCP flows (uniform 10-50 KB) from 4 senders to `r` at `load` of the
/// 1 Gbps bottleneck of a dumbbell (10 Gbps access links, 100 us RTT, K = 20), no listed flows.
fn poisson_dumbbell(load: f64, duration_ps: u64) -> Spec {
    let mut spec = dumbbell(
        4,
        GBPS,
        10 * GBPS,
        100 * US,
        250,
        AqmSpec::threshold(Amount::Packets(20)),
        ProtocolSpec::dctcp(1.0 / 16.0, 1.0),
        duration_ps,
        0,
    );
    spec.flows.clear();
    spec.workloads = vec![WorkloadSpec::Poisson {
        load,
        link: Some(PortRef { from: "sw".into(), to: "r".into() }),
        sizes: SizeSpec::Uniform { min_bytes: 10_000, max_bytes: 50_000 },
        senders: (0..4).map(|i| format!("s{i}")).collect(),
        receivers: vec!["r".into()],
        classes: vec![ClassSpec {
            share: 1.0,
            protocol: ProtocolSpec::dctcp(1.0 / 16.0, 1.0),
            min_cwnd_pkt: None,
            init_cwnd_pkt: 2.0,
            min_rto_ps: Some(10 * MS),
            delayed_ack: None,
            tcp: Default::default(),
        }],
        start_ps: 0,
        stop_ps: None,
    }];
    spec
}

#[test]
fn peak_flow_state_is_bounded_by_the_flows_in_the_system_not_by_the_flows_generated() {
    // 50 % of 1 Gbps with a 30 KB mean: lambda ~ 2 080 flows/s, ~6 000 flows in 3 s.
    let duration_ps = 3_000 * MS;
    let mut sim = Sim::new(poisson_dumbbell(0.5, duration_ps)).unwrap();
    sim.run().unwrap();
    sim.check_invariants().unwrap(); // includes: the live counter equals the flows with state
    let created = sim.flows_created();
    let peak = sim.peak_active_flows();
    let active = sim.active_flows(); // as the run ends: `results` frees the running flows' state
    let t = sim.results().unwrap();
    assert_eq!(sim.active_flows(), 0, "the results freed the running flows' state");
    assert_eq!(sim.flows_created(), created, "flow ids handed out, after the results too");
    let fl = table(&t, "flows");
    let fct = fl.f64("fct_s");
    let finished: Vec<f64> = fct.iter().copied().filter(|x| x.is_finite()).collect();
    assert!(finished.len() as f64 > 0.95 * created as f64, "{} of {created} finished", finished.len());

    // Little's law: the mean number of flows in the system is L = lambda x W, with lambda the
    // measured arrival rate and W the measured mean FCT.
    let lambda = created as f64 / (duration_ps as f64 * 1e-12);
    let w = finished.iter().sum::<f64>() / finished.len() as f64;
    let l = lambda * w;
    // Bound on the peak (decided before the run): take the number in the system as geometric
    // with mean L (the M/M/1 processor-sharing law, whose tail is heavier than the Poisson law of
    // flows that do not interact), P(N >= k) = (L / (1 + L))^k, and ask that none of the
    // duration / W roughly independent looks at it reaches k with probability above 1e-3:
    // k = ln(looks / 1e-3) / ln((1 + L) / L).
    let looks = duration_ps as f64 * 1e-12 / w;
    let bound = ((looks / 1e-3).ln() / ((1.0 + l) / l).ln()).ceil() as usize;
    assert!(peak >= 1 && peak <= bound, "peak {peak} flows with state; Little's law L = {l:.2}, bound {bound}");
    // The bound is far below what keeping every flow's state would hold (the test can fail).
    assert!(created > 20 * bound, "{created} flows created, bound {bound}");
    assert_eq!(fl.rows(), created, "one result row per flow");
    assert_eq!(active, created - finished.len(), "state of unfinished flows only");
    // Each flow's state is a fixed size (plus its window's buffers); a finished flow keeps a row.
    let (state_bytes, row_bytes) = Sim::flow_state_bytes();
    assert!(2 * row_bytes <= state_bytes, "a row ({row_bytes} B) against a flow's state ({state_bytes} B)");
    println!("peak {peak} flows with state (L = {l:.2}, bound {bound}) of {created}; {state_bytes} B a flow, {row_bytes} B a row");
}

/// A trace of `n` 1 GB flows starting `gap_ps` apart on a 4-host leaf-spine (10 Gbps, 100-packet
/// buffers), `duration_ps` long, with metrics.max_memory = `max_memory` bytes: none can finish.
fn long_trace(n: usize, gap_ps: u64, duration_ps: u64, max_memory: u64) -> Spec {
    let q = r#"{"capacity": {"packets": 100}, "aqm": {"kind": "drop_tail"}}"#;
    let link = format!(r#"{{"rate_bps": 10000000000, "delay_ps": 1000000, "queue": {q}}}"#);
    let at: Vec<String> = (0..n as u64).map(|i| (i * gap_ps).to_string()).collect();
    let src: Vec<String> = (0..n).map(|i| (i % 4).to_string()).collect();
    let dst: Vec<String> = (0..n).map(|i| ((i % 4 + 1 + (i / 4) % 3) % 4).to_string()).collect();
    let json = format!(
        r#"{{"seed": 1, "duration_ps": {duration_ps}, "warmup_ps": 0, "packet_bytes": 1500, "header_bytes": 40,
        "host_jitter_ps": 0, "topology": {{"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2,
        "host": {link}, "leaf_spine": {link}, "ecmp_seed": null}}, "flows": [],
        "workloads": [{{"kind": "trace", "arrivals": {{"hosts": ["h0", "h1", "h2", "h3"], "at_ps": [{}], "src": [{}],
        "dst": [{}], "size_bytes": [{}]}}, "classes": [{{"share": 1.0, "protocol": {{"kind": "dctcp", "g": 0.0625,
        "alpha_init": 1.0}}, "min_cwnd_pkt": 2.0, "init_cwnd_pkt": 10.0, "min_rto_ps": 10000000000, "delayed_ack": null,
        "tcp": {{"profile": "ns2"}}}}]}}], "l2": null, "partitions": 1,
        "metrics": {{"queue_interval_ps": 10000000, "throughput_interval_ps": 1000000000, "cwnd_interval_ps": 400000,
        "monitor": null, "trace_flows": null, "max_memory_bytes": {max_memory}}}}}"#,
        at.join(","),
        src.join(","),
        dst.join(","),
        vec!["1000000000"; n].join(","),
    );
    Spec::from_json(&json).unwrap()
}

/// A budget of `bytes` beside what the plan counts for `n` flows a trace lists
/// (`TRACE_ARRIVAL_BYTES` each), bytes.
fn beside_arrivals(n: u64, bytes: u64) -> u64 {
    bytes + n * dcsim_core::sim::TRACE_ARRIVAL_BYTES as u64
}

#[test]
fn a_stop_by_running_flows_says_how_many_ran_at_once() {
    // 10 000 flows 100 ns apart at 40 MB beside what the plan counts for the listed flows
    // themselves (TRACE_ARRIVAL_BYTES each): the stop comes near 6 000 running (tests/test_fabric.py).
    // Its message had said "up to 2942 ran at once" with 6 014 running: the count beyond the plan.
    let mut sim = Sim::new(long_trace(10_000, 100_000, 2_000_000_000, beside_arrivals(10_000, 40_000_000))).unwrap();
    let e = sim.run().expect_err("the running flows outgrow metrics.max_memory").to_string();
    let running = sim.active_flows();
    assert!(running > 4_000, "{running} running: {e}");
    assert!(e.contains(&format!("up to {running} ran at once, ")), "{running} running: {e}");
    // It ends at an instant's end, so the front ends keep the run of 0 .. now (the engine says so,
    // and its results are there to take: one row per flow started).
    assert!(sim.stop_keeps_run(), "{e}");
    let flows = sim.results().expect("the run of 0 .. now").into_iter().find(|t| t.name == "flows").expect("flows");
    assert_eq!(flows.rows(), running);
}

#[test]
fn a_stop_inside_an_instant_or_by_another_error_keeps_nothing() {
    // The same flows all at t = 0: the stop comes inside the instant, with part of its flows
    // created (tests/test_fabric.py), so there is no run of 0 .. now to keep.
    let mut sim = Sim::new(long_trace(10_000, 0, 2_000_000_000, beside_arrivals(10_000, 40_000_000))).unwrap();
    let e = sim.run().expect_err("the running flows outgrow metrics.max_memory").to_string();
    assert!(e.contains("keeps nothing"), "{e}");
    assert!(!sim.stop_keeps_run(), "{e}");
    // A stop that keeps the run, then an error of another kind: the flag is the last call's.
    let mut sim = Sim::new(long_trace(10_000, 100_000, 2_000_000_000, beside_arrivals(10_000, 40_000_000))).unwrap();
    sim.run().expect_err("the running flows outgrow metrics.max_memory");
    assert!(sim.stop_keeps_run());
    // That stop came at a flow's start: the run ended 1 ps later, that instant's workload events
    // put back unfired, and cannot go on (they would fire late and count twice).
    let e = sim.run_until(dcsim_core::units::Time(2_000_000_000)).expect_err("ended").to_string();
    assert!(e.contains("build a new simulation"), "{e}");
    assert!(!sim.stop_keeps_run());
}
