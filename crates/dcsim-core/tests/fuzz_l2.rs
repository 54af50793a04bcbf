//! Property-based fuzzing of the L2 family (QCN, SMCC, DSM): random parking lots of 1 to 4
//! switches with hosts anywhere, random rates, delays, byte buffers, frame and feedback sizes,
//! feedback latencies, listed sources (long or finite, staggered) and Poisson short flows. A
//! refused spec names its field; a valid one runs in steps with the invariants checked after each
//! (frame conservation, every queue's byte count); then, from first principles:
//! * every port's utilization is in [0, 1], and no switch queue holds more frames than its byte
//!   buffer has room for at the smallest frame the spec can send;
//! * every sampled rate is positive and at most its source's line rate (a reaction point only
//!   slows a source below its NIC);
//! * no source delivered more than it sent, nor more than its size; a finished one exactly its size;
//! * the same spec gives bit-identical tables again.
//!
//! `PROPTEST_CASES=2000 cargo test --release -p dcsim-core --test fuzz_l2` is the long profile.

mod common;
use common::*;
use dcsim_core::l2::world::{L2Setup, LatencySpec, PoissonSpec, SourceSpec};
use dcsim_core::l2::{dsm, qcn, smcc, L2Spec};
use dcsim_core::metrics::Table;
use dcsim_core::scenario::*;
use dcsim_core::units::Time;
use dcsim_core::Sim;
use proptest::prelude::*;

/// Valid specs that ran (printed by `zz_report_runs`).
static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn rate() -> impl Strategy<Value = u64> {
    prop_oneof![
        20 => prop_oneof![Just(GBPS), Just(10 * GBPS), Just(40 * GBPS), Just(100 * GBPS)],
        1 => prop_oneof![Just(0u64), Just(u64::MAX)],
    ]
}

fn scheme() -> impl Strategy<Value = L2Spec> {
    prop_oneof![
        Just(L2Spec::Qcn(qcn::Params::default())),
        Just(L2Spec::Smcc(smcc::Params::default())),
        Just(L2Spec::Dsm(dsm::Params::default())),
    ]
}

fn latency() -> impl Strategy<Value = LatencySpec> {
    prop_oneof![
        (0u64..50 * US).prop_map(|ps| LatencySpec::Fixed { ps }),
        (0u64..20 * US, 0u64..20 * US).prop_map(|(lo, w)| LatencySpec::Uniform { lo_ps: lo, hi_ps: lo + w }),
    ]
}

/// A source from sender `i` to receiver `i` (hosts `S{i}`, `R{i}`), of `n` pairs.
fn source(n: u32) -> impl Strategy<Value = SourceSpec> {
    (
        0..n,
        0u64..500 * US,
        prop::option::of(1_000u64..2_000_000),
        prop::option::of(prop_oneof![5 => Just(GBPS / 10), 5 => Just(GBPS), 1 => rate()]),
        1u32..3,
    )
        .prop_map(|(i, start_ps, size_bytes, initial_rate_bps, count)| SourceSpec {
            src: format!("S{i}"),
            dst: format!("R{i}"),
            start_ps,
            stop_ps: None,
            size_bytes,
            initial_rate_bps,
            count,
        })
}

prop_compose! {
    // One switch has no switch-to-switch port, so no default congestion point: refused by name.
    fn spec()(switches in prop_oneof![1 => Just(1u32), 6 => 2u32..5], pairs in 1u32..5)(
        switches in Just(switches),
        places in prop::collection::vec((0..switches, 0..switches), pairs as usize),
        sources in prop::collection::vec(source(pairs), 1..5),
        poisson in prop::collection::vec((0..pairs, 1_000.0f64..200_000.0, 1_000u64..100_000), 0..2),
        scheme in scheme(),
        latency in latency(),
        rate_bps in rate(),
        host_rate_bps in rate(),
        delay_ps in 0u64..5 * US,
        buffer in prop_oneof![20 => 2_000u64..500_000, 1 => Just(0u64)],
        frame_bytes in prop_oneof![Just(1000u32), Just(1500), 64u32..9000],
        feedback_bytes in prop_oneof![Just(64u32), 64u32..1500],
        duration in 200 * US..3 * MS,
        warm in 0.0f64..0.5,
        jitter in prop_oneof![3 => Just(0u64), 2 => 1u64..3_000_000, 1 => Just(MAX_HOST_JITTER_PS + 1)],
        seed in any::<u64>(),
    ) -> Spec {
        let hosts = places
            .iter()
            .enumerate()
            .flat_map(|(i, &(s, r))| {
                [HostAt { name: format!("S{i}"), at: format!("C{}", s + 1) }, HostAt { name: format!("R{i}"), at: format!("C{}", r + 1) }]
            })
            .collect();
        let poisson = poisson
            .into_iter()
            .map(|(i, rate_per_s, mean_bytes)| PoissonSpec {
                src: format!("S{i}"),
                dst: format!("R{i}"),
                rate_per_s,
                mean_bytes,
                start_ps: 0,
                stop_ps: None,
            })
            .collect();
        Spec {
            seed,
            duration_ps: duration,
            warmup_ps: (duration as f64 * warm) as u64,
            packet_bytes: frame_bytes,
            header_bytes: 40,
            topology: TopologySpec::ParkingLot {
                switches,
                rate_bps,
                delay_ps,
                host_rate_bps,
                host_delay_ps: delay_ps,
                hosts,
                queue: QueueSpec { capacity: Amount::Bytes(buffer), aqm: AqmSpec::drop_tail() },
            },
            flows: vec![],
            workloads: vec![],
            metrics: MetricsSpec::default(),
            host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
            host_jitter_ps: jitter,
            l2: Some(L2Setup {
                scheme,
                frame_bytes,
                feedback_bytes,
                cps: None,
                feedback_latency: latency,
                sources,
                poisson,
                rate_interval_ps: 20 * US,
            }),
            partitions: 1,
        }
    }
}

/// Run `spec` in four steps with the invariants checked after each; None if it was refused (with
/// a named field).
fn run(spec: &Spec) -> Option<Vec<Table>> {
    let mut sim = match Sim::new(spec.clone()) {
        Ok(sim) => sim,
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains(": ") && !msg.starts_with(": "), "an error without its field: {msg}");
            return None;
        }
    };
    let end = sim.end().0;
    for k in 1..=4 {
        sim.run_until(Time(end / 4 * k)).expect("a valid run never errs");
        sim.check_invariants().expect("invariants");
    }
    Some(sim.results().expect("results"))
}

fn check_physics(spec: &Spec, t: &[Table]) {
    let (TopologySpec::ParkingLot { queue, .. }, Some(l2)) = (&spec.topology, &spec.l2) else { unreachable!() };
    let Amount::Bytes(buffer) = queue.capacity else { unreachable!() };
    // The smallest frame a queue can hold: a full frame, a feedback frame, or a finite source's
    // last frame (its remainder); Poisson short flows may end in a frame of 1 B.
    let fb = l2.frame_bytes as u64;
    let last_frames = l2.sources.iter().filter_map(|s| s.size_bytes).map(|b| b - (b.div_ceil(fb).max(1) - 1) * fb);
    let smallest =
        if l2.poisson.is_empty() { last_frames.fold(fb.min(l2.feedback_bytes as u64), u64::min) as f64 } else { 1.0 };
    let ports = table(t, "ports");
    let (src, dst) = (strs(ports, "src"), strs(ports, "dst"));
    for (i, (&u, &q)) in ports.f64("utilization").iter().zip(ports.f64("q_max_pkt")).enumerate() {
        assert!(u.is_nan() || (0.0..=1.0).contains(&u), "{} -> {}: utilization {u}", src[i], dst[i]);
        if src[i].starts_with('C') {
            assert!(q.is_nan() || q * smallest <= buffer as f64, "{} -> {}: {q} frames in {buffer} B", src[i], dst[i]);
        }
    }
    let sources = table(t, "sources");
    let line = sources.f64("line_rate_bps");
    let rates = table(t, "rates");
    for (&s, &r) in rates.u64("source").iter().zip(rates.f64("rate_bps")) {
        assert!(r > 0.0 && r <= line[s as usize], "source {s}: rate {r} bit/s, line rate {}", line[s as usize]);
    }
    let (sent, delivered) = (sources.u64("sent_bytes_whole_run"), sources.u64("delivered_bytes_whole_run"));
    let (size, fct) = (sources.f64("size_bytes"), sources.f64("fct_s"));
    for i in 0..sources.rows() {
        assert!(delivered[i] <= sent[i], "source {i}: delivered {} > sent {}", delivered[i], sent[i]);
        if size[i].is_finite() {
            assert!(delivered[i] as f64 <= size[i], "source {i}: delivered {} > size {}", delivered[i], size[i]);
        }
        if fct[i].is_finite() {
            assert_eq!(delivered[i] as f64, size[i], "source {i} finished without its whole size");
        }
    }
}

proptest! {
    // 32 cases in CI; PROPTEST_CASES=2000 for the long profile.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(32),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_l2_networks_keep_the_invariants_and_replay_bit_identically(spec in spec()) {
        if let Some(t) = run(&spec) {
            RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            check_physics(&spec, &t);
            // Debug prints every f64 exactly (shortest round-trip form) and NaN == NaN.
            let again = run(&spec).expect("the same spec");
            prop_assert_eq!(format!("{t:?}"), format!("{again:?}"));
        }
    }
}

#[test]
fn zz_report_runs() {
    // Ordering of tests is not guaranteed; this only reports what ran before it in this process.
    eprintln!("fuzz_l2: {} valid specs ran so far", RUNS.load(std::sync::atomic::Ordering::Relaxed));
}
