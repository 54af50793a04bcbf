//! Property-based fuzzing of fabrics (issue 12): random small leaf-spines and fat-trees with
//! per-tier rates, delays, buffers and AQMs, Poisson, incast and permutation workloads and listed
//! flows, in one world or several partitions. A refused spec names its field; a valid one runs in
//! steps with the invariants checked after each (packet conservation over the worlds, every
//! queue's byte count); then, from first principles:
//! * every port's utilization is in [0, 1] and no switch queue exceeds its tier's buffer;
//! * a finished flow delivered exactly its size, no flow more than its size, and none finished
//!   faster than alone on an empty network (slowdown >= 1: the ideal FCT is a lower bound);
//! * the same spec gives bit-identical tables again, with 1 thread or 2.
//!
//! `PROPTEST_CASES=2000 cargo test --release -p dcsim-core --test fuzz_fabric` is the long profile.

mod common;
use common::*;
use dcsim_core::metrics::Table;
use dcsim_core::scenario::*;
use dcsim_core::units::Time;
use dcsim_core::workload::{ClassSpec, SizeSpec, WorkloadSpec};
use dcsim_core::Sim;
use proptest::prelude::*;

/// Valid specs that ran (printed by `zz_report_runs`: about half of the specs drawn).
static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn rate() -> impl Strategy<Value = u64> {
    prop_oneof![
        20 => prop_oneof![Just(GBPS), Just(10 * GBPS), Just(25 * GBPS), Just(40 * GBPS), Just(100 * GBPS)],
        1 => prop_oneof![Just(0u64), Just(u64::MAX)],
    ]
}

fn tier() -> impl Strategy<Value = TierSpec> {
    (rate(), prop_oneof![Just(0u64), 100_000u64..5 * US], 1u64..400, 0u8..3, 0.0f64..1.0).prop_map(
        |(rate_bps, delay_ps, buffer, aqm, frac)| {
            let k = ((buffer as f64 * frac).ceil() as u64).max(1);
            let aqm = match aqm {
                0 => AqmSpec::drop_tail(),
                1 => AqmSpec::threshold(Amount::Packets(k)),
                _ => AqmSpec::Red(dcsim_core::aqm::red::Params {
                    min_th: k as f64 / 2.0,
                    max_th: k as f64,
                    max_p: 0.1,
                    w_q: 0.002,
                    gentle: true,
                    ecn: true,
                    wait: true,
                }),
            };
            TierSpec { rate_bps, delay_ps, queue: QueueSpec { capacity: Amount::Packets(buffer), aqm } }
        },
    )
}

fn topology() -> impl Strategy<Value = TopologySpec> {
    let seed = prop::option::of(any::<u64>());
    prop_oneof![
        (1u32..5, 1u32..4, 1u32..5, tier(), tier(), seed.clone()).prop_map(
            |(leaves, spines, hosts_per_leaf, host, leaf_spine, ecmp_seed)| TopologySpec::LeafSpine {
                leaves,
                spines,
                hosts_per_leaf,
                host,
                leaf_spine,
                ecmp_seed,
            }
        ),
        (prop_oneof![3 => Just(2u32), 6 => Just(4), 1 => Just(6), 1 => Just(3)], tier(), tier(), tier(), seed)
            .prop_map(|(k, host, edge_agg, agg_core, ecmp_seed)| TopologySpec::FatTree {
                k,
                host,
                edge_agg,
                agg_core,
                ecmp_seed,
            }),
    ]
}

/// Hosts of a fabric spec (`h0 ..`), 0 for a size the builder refuses.
fn hosts(t: &TopologySpec) -> u32 {
    match t {
        TopologySpec::LeafSpine { leaves, hosts_per_leaf, .. } => leaves * hosts_per_leaf,
        TopologySpec::FatTree { k, .. } if k % 2 == 0 => k * k * k / 4,
        _ => 0,
    }
}

fn class(dctcp_cc: bool, init: f64) -> ClassSpec {
    ClassSpec {
        share: 1.0,
        protocol: if dctcp_cc { dctcp(1.0 / 16.0) } else { ProtocolSpec::newreno(true) },
        min_cwnd_pkt: None,
        init_cwnd_pkt: init,
        min_rto_ps: Some(MS),
        delayed_ack: None,
        tcp: Default::default(),
    }
}

/// A workload over hosts `0 .. n` (indices past n name hosts that do not exist: refused by name).
fn workload(n: u32) -> impl Strategy<Value = WorkloadSpec> {
    let n = n.max(1);
    let names = move |v: Vec<u32>| v.into_iter().map(|i| format!("h{i}")).collect::<Vec<_>>();
    let all = move || (0..n).map(|i| format!("h{i}")).collect::<Vec<_>>();
    let cls = (prop::bool::ANY, prop_oneof![Just(1.0f64), Just(10.0)]).prop_map(|(d, i)| vec![class(d, i)]);
    prop_oneof![
        (0.02f64..0.95, 0u8..3, 1_000u64..200_000, cls.clone(), prop::bool::ANY).prop_map(
            move |(load, sz, bytes, classes, everyone)| WorkloadSpec::Poisson {
                load,
                link: None,
                sizes: match sz {
                    0 => SizeSpec::Fixed { bytes },
                    1 => SizeSpec::Uniform { min_bytes: bytes / 10 + 1, max_bytes: bytes },
                    _ => SizeSpec::Cdf { points: vec![(1_000.0, 0.0), (bytes as f64 / 2.0, 0.6), (bytes as f64, 1.0)] },
                },
                senders: if everyone { all() } else { names((0..n).step_by(2).collect()) },
                receivers: all(),
                classes,
                start_ps: 0,
                stop_ps: None,
            }
        ),
        // Servers: distinct hosts other than the client (`n` itself, now and then: a host that
        // does not exist, refused by name).
        (0..n, prop::collection::btree_set(1..n + 1, 1..6), 10_000u64..1_000_000, 1u64..4, cls.clone()).prop_map(
            move |(client, servers, total_bytes, rounds, classes)| WorkloadSpec::Incast {
                client: format!("h{client}"),
                servers: names(servers.into_iter().map(|s| if s == n { n } else { (client + s) % n }).collect()),
                total_bytes,
                rounds,
                gap_ps: 50 * US,
                start_ps: 0,
                classes,
            }
        ),
        (prop::option::of(1_000u64..300_000), cls).prop_map(move |(size_bytes, classes)| {
            WorkloadSpec::Permutation { senders: all(), receivers: all(), size_bytes, start_ps: 0, classes }
        }),
    ]
}

prop_compose! {
    fn spec()(topology in topology())(
        flows in prop::collection::vec((0..hosts(&topology).max(1), 1..hosts(&topology).max(2), prop::option::of(1u64..500_000)), 0..3),
        workloads in prop::collection::vec(workload(hosts(&topology)), 1..3),
        topology in Just(topology),
        duration in 200 * US..3 * MS,
        warm in 0.0f64..0.5,
        seed in any::<u64>(),
        partitions in prop_oneof![2 => Just(1u32), 2 => Just(2), 1 => Just(3)],
        jitter in prop_oneof![3 => Just(0u64), 2 => 1u64..3_000_000, 1 => Just(MAX_HOST_JITTER_PS + 1)],
    ) -> Spec {
        let flows = flows
            .into_iter()
            // dst = src + d: another host (but on a one-host fabric, refused by name)
            .map(|(s, d, size)| {
                let dst = (s + d) % hosts(&topology).max(1);
                FlowSpec { size_bytes: size, ..FlowSpec::long_lived(format!("h{s}"), format!("h{dst}"), dctcp(1.0 / 16.0)) }
            })
            .collect();
        Spec {
            seed,
            duration_ps: duration,
            warmup_ps: (duration as f64 * warm) as u64,
            packet_bytes: 1500,
            header_bytes: 40,
            topology,
            flows,
            workloads,
            metrics: MetricsSpec::default(),
            host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
            host_jitter_ps: jitter,
            l2: None,
            partitions,
        }
    }
}

/// Run `spec` in four steps with the invariants checked after each; None if it was refused (with
/// a named field).
fn run(spec: &Spec, threads: usize) -> Option<Vec<Table>> {
    let mut sim = match Sim::new(spec.clone()) {
        Ok(sim) => sim,
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains(": ") && !msg.starts_with(": "), "an error without its field: {msg}");
            return None;
        }
    };
    if threads == 1 {
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    sim.set_threads(threads);
    let end = sim.end().0;
    for k in 1..=4 {
        sim.run_until(Time(end / 4 * k)).expect("a valid run never errs");
        sim.check_invariants().expect("invariants");
    }
    Some(sim.results().expect("results"))
}

proptest! {
    // 32 cases in CI (a few seconds); PROPTEST_CASES=2000 for the long profile.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(32),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_fabrics_keep_the_invariants_and_replay_bit_identically(spec in spec()) {
        if let Some(t) = run(&spec, 1) {
            check_physics(&spec, &t);
            // Debug prints every f64 exactly (shortest round-trip form) and NaN == NaN.
            let again = run(&spec, 2).expect("the same spec");
            prop_assert_eq!(format!("{t:?}"), format!("{again:?}"));
        }
    }
}

#[test]
fn zz_report_runs() {
    // Ordering of tests is not guaranteed; this only reports what ran before it in this process.
    eprintln!("fuzz_fabric: {} valid specs ran so far", RUNS.load(std::sync::atomic::Ordering::Relaxed));
}
