//! Property-based fuzzing of the engine spec (issue 6 §6): random specs, valid or not, never
//! panic; valid ones run with the invariants checked along the way; replays are bit-identical.
//! `PROPTEST_CASES=10000 cargo test --release -p dcsim-core --test fuzz` is the long profile.

use dcsim_core::metrics::Table;
use dcsim_core::scenario::*;
use dcsim_core::units::Time;
use dcsim_core::Sim;
use proptest::prelude::*;

/// Valid specs that ran (printed at the end of the long profile).
static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn rate() -> impl Strategy<Value = u64> {
    // Mostly valid (the runs are the point); now and then out of range on purpose: those must be
    // named errors, never panics.
    prop_oneof![
        12 => prop_oneof![Just(10_000_000u64), Just(1_000_000_000), Just(10_000_000_000), Just(133_000_000_000)],
        1 => prop_oneof![Just(0u64), Just(u64::MAX)],
    ]
}

fn time_ps() -> impl Strategy<Value = u64> {
    prop_oneof![12 => 1_000_000u64..800_000_000, 1 => prop_oneof![Just(0u64), Just(u64::MAX), Just(18_446_744_000_000_000_000)]]
}

/// A host NIC's send jitter (`Spec::host_jitter_ps`): mostly none, else up to a few packet times
/// (the runs keep their invariants and replay bit-identically with it), now and then one past the
/// limit (a named error).
fn host_jitter() -> impl Strategy<Value = u64> {
    prop_oneof![6 => Just(0u64), 3 => 1u64..5_000_000, 1 => Just(MAX_HOST_JITTER_PS + 1)]
}

fn aqm(buffer: u64) -> impl Strategy<Value = AqmSpec> {
    prop_oneof![
        Just(AqmSpec::drop_tail()),
        (1..=buffer.max(1) + 1).prop_map(|k| AqmSpec::threshold(Amount::Packets(k))),
        (0.0f64..50.0, 1.0f64..100.0, 0.0f64..1.2, prop::bool::ANY).prop_map(|(lo, w, p, gentle)| AqmSpec::Red(
            dcsim_core::aqm::red::Params {
                min_th: lo,
                max_th: lo + w,
                max_p: p,
                w_q: 0.002,
                gentle,
                ecn: true,
                wait: true,
            }
        )),
    ]
}

prop_compose! {
    fn flow(senders: u32)(
        s in 0..senders.max(1),
        dctcp in prop::bool::ANY,
        size in prop::option::of(prop_oneof![12 => 1u64..200_000, 1 => prop_oneof![Just(0u64), Just(u64::MAX)]]),
        min_rto in prop_oneof![12 => prop_oneof![Just(1_000_000u64), Just(10_000_000_000)], 1 => Just(0u64)],
        init in prop_oneof![12 => prop_oneof![Just(1.0f64), Just(10.0)], 1 => prop_oneof![Just(0.5), Just(1e300), Just(f64::NAN)]],
        delack in prop::bool::ANY,
        linux in prop::bool::ANY,
        ect_acks in prop::option::of(prop::bool::ANY),
    ) -> FlowSpec {
        let protocol = if dctcp { ProtocolSpec::dctcp(1.0 / 16.0, 1.0) } else { ProtocolSpec::newreno(true) };
        let profile = if linux { Profile::Linux } else { Profile::Ns2 };
        FlowSpec {
            size_bytes: size,
            min_rto_ps: Some(min_rto),
            init_cwnd_pkt: init,
            delayed_ack: delack.then_some(DelayedAckSpec { segments: 2, timeout_ps: 40_000_000 }),
            tcp: TcpSpec { profile, ect_acks, ..TcpSpec::default() },
            ..FlowSpec::long_lived(format!("s{s}"), "r", protocol)
        }
    }
}

prop_compose! {
    fn spec()(senders in 1u32..6, buffer in 1u64..300)(
        senders in Just(senders),
        bottleneck in rate(),
        access in rate(),
        rtt in time_ps(),
        buffer in Just(buffer),
        aqm in aqm(buffer),
        flows in prop::collection::vec(flow(senders), 1..5),
        duration in prop_oneof![12 => 100_000_000u64..3_000_000_000, 1 => prop_oneof![Just(0u64), Just(u64::MAX)]],
        warm in 0.0f64..1.0,
        seed in any::<u64>(),
        queue_iv in prop_oneof![Just(1u64), Just(1_000_000), Just(10_000_000)],
        jitter in host_jitter(),
    ) -> Spec {
        Spec {
            seed,
            duration_ps: duration,
            warmup_ps: (duration as f64 * warm) as u64,
            packet_bytes: 1500,
            header_bytes: 40,
            topology: TopologySpec::Dumbbell {
                senders,
                bottleneck_bps: bottleneck,
                access_bps: access,
                rtt_ps: vec![rtt],
                bottleneck_queue: QueueSpec { capacity: Amount::Packets(buffer), aqm },
                reverse_queue: None,
            },
            flows,
            workloads: vec![],
            metrics: MetricsSpec { queue_interval_ps: queue_iv, ..MetricsSpec::default() },
            host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
            host_jitter_ps: jitter,
            l2: None,
            partitions: 1,
        }
    }
}

fn run(spec: Spec) -> Option<Vec<Table>> {
    let mut sim = match Sim::new(spec.clone()) {
        Ok(sim) => sim,
        Err(e) => {
            // A refused spec names a field: "field: message".
            let msg = e.to_string();
            assert!(msg.contains(": ") && !msg.starts_with(": "), "{msg}");
            return None;
        }
    };
    RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let end = sim.end().0;
    for k in 1..=4 {
        sim.run_until(Time(end / 4 * k)).expect("a valid run never errs");
        sim.check_invariants().expect("invariants");
    }
    let t = sim.results().expect("results");
    let ports = t.iter().find(|t| t.name == "ports").unwrap();
    for &u in ports.f64("utilization") {
        assert!(u.is_nan() || (0.0..=1.0).contains(&u), "utilization {u}");
    }
    if let TopologySpec::Dumbbell { bottleneck_queue: QueueSpec { capacity: Amount::Packets(cap), .. }, .. } =
        &spec.topology
    {
        let b = ports.bool("monitored").iter().position(|&m| m).unwrap();
        let q = ports.f64("q_max_pkt")[b];
        assert!(q.is_nan() || q <= *cap as f64, "q_max {q} > buffer {cap}");
    }
    Some(t)
}

proptest! {
    // 64 cases in CI; PROPTEST_CASES=10000 for the long profile.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_specs_never_panic_and_keep_the_invariants(spec in spec(), replay in prop::bool::ANY) {
        if let Some(t) = run(spec.clone()) {
            if replay {
                // Debug prints every f64 exactly (shortest round-trip form) and NaN == NaN.
                prop_assert_eq!(format!("{t:?}"), format!("{:?}", run(spec).expect("same spec")));
            }
        }
    }

    #[test]
    fn random_json_never_panics(s in "\\PC{0,200}") {
        let _ = Sim::from_json(&s);
    }

    #[test]
    fn mutated_json_numbers_never_panic(n in prop_oneof![Just("-1".to_string()), Just("1e400".to_string()),
            Just("18446744073709551616".to_string()), Just("true".to_string()), Just("null".to_string()),
            any::<i64>().prop_map(|x| x.to_string()), any::<f64>().prop_map(|x| format!("{x:?}"))],
            which in 0usize..6) {
        let fields = ["senders", "bottleneck_bps", "rtt_ps", "duration_ps", "seed", "packets"];
        let base = r#"{"seed":1,"duration_ps":1000000000,"topology":{"kind":"dumbbell","senders":1,"bottleneck_bps":10000000000,
            "access_bps":10000000000,"rtt_ps":[100000000],"bottleneck_queue":{"capacity":{"packets":100},
            "aqm":{"kind":"drop_tail"}}},"flows":[{"src":"s0","dst":"r","protocol":{"kind":"dctcp"}}]}"#;
        let f = fields[which];
        let key = format!("\"{f}\":");
        let i = base.find(&key).unwrap() + key.len();
        let end = i + base[i..].find([',', '}']).unwrap();
        let (value_start, value_end) = if base[i..].starts_with('[') { (i + 1, i + base[i..].find(']').unwrap()) } else { (i, end) };
        let s = format!("{}{}{}", &base[..value_start], n, &base[value_end..]);
        if let Ok(mut sim) = Sim::from_json(&s) {
            sim.run_until(Time(sim.end().0.min(1_000_000_000))).expect("valid runs run");
        }
    }
}

#[test]
fn zz_report_runs() {
    // Ordering of tests is not guaranteed; this only reports what ran before it in this process.
    eprintln!("fuzz: {} valid specs ran so far", RUNS.load(std::sync::atomic::Ordering::Relaxed));
}
