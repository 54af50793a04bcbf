//! Property-based fuzzing of the engine spec (issue 6 §6): random specs, valid or not, never
//! panic; valid ones run with the invariants checked along the way; replays are bit-identical.
//! `PROPTEST_CASES=10000 cargo test --release -p dcsim-core --test fuzz` is the long profile.

use dcsim_core::metrics::Table;
use dcsim_core::scenario::*;
use dcsim_core::units::Time;
use dcsim_core::Sim;
use proptest::prelude::*;

mod common;

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

// ---------------------------------------------------------------------------------------------
// Mixed specs: every protocol (NewReno, DCTCP, DCTCP-improved-fairness, DX with each kind of R0)
// in one spec, every queue discipline (drop-tail, threshold, RED, CHOKe, modified CHOKe),
// generated workloads (Poisson with fixed / uniform / CDF sizes, incast) beside listed flows, on
// the dumbbell and on small fabrics split into partitions. The spec drawn is valid by the
// engine's documented ranges and must run; now and then one field is set out of range on purpose
// and the error must name that field. A partitioned run is checked against itself (1 thread or 2,
// bit for bit) and against its one-world run as far as `sim/partition.rs` promises: the same
// flows (src, dst, start, size, ideal FCT), not the same tables.
// `PROPTEST_CASES=2000 cargo test --release -p dcsim-core --test fuzz mixed` is the long profile.
// ---------------------------------------------------------------------------------------------

use dcsim_core::aqm::choke::{self, MatchRule};
use dcsim_core::workload::{ClassSpec, SizeSpec, WorkloadSpec};

const US: u64 = 1_000_000;
const MS: u64 = 1_000_000_000;
const GBPS: u64 = 1_000_000_000;

/// What the valid mixed specs held and did (printed by `zz_report_mixed_runs`, for the long
/// profile's coverage).
static MIXED_SEEN: std::sync::Mutex<std::collections::BTreeMap<&'static str, u64>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

fn tally(spec: &Spec, t: &[Table]) {
    let mut seen = vec![match spec.topology {
        TopologySpec::Dumbbell { .. } => "topology dumbbell",
        TopologySpec::LeafSpine { .. } => "topology leaf_spine",
        _ => "topology fat_tree",
    }];
    let mut protocol = |p: &ProtocolSpec| {
        seen.push(match p {
            ProtocolSpec::Dx(dcsim_core::cc::dx::Params { r0: BaseRttSpec::Min }) => "protocol dx r0=min",
            ProtocolSpec::Dx(dcsim_core::cc::dx::Params { r0: BaseRttSpec::Path }) => "protocol dx r0=path",
            ProtocolSpec::Dx(_) => "protocol dx r0=fixed",
            ProtocolSpec::DctcpImprovedFairness(_) => "protocol dctcp-improved-fairness",
            ProtocolSpec::Dctcp(_) => "protocol dctcp",
            _ => "protocol newreno",
        })
    };
    spec.flows.iter().for_each(|f| protocol(&f.protocol));
    for w in &spec.workloads {
        w.classes().iter().for_each(|c| protocol(&c.protocol));
    }
    let mut queues = vec![];
    match &spec.topology {
        TopologySpec::Dumbbell { bottleneck_queue, reverse_queue, .. } => {
            queues.push(bottleneck_queue);
            queues.extend(reverse_queue);
        }
        TopologySpec::LeafSpine { host, leaf_spine, .. } => queues.extend([&host.queue, &leaf_spine.queue]),
        TopologySpec::FatTree { host, edge_agg, agg_core, .. } => {
            queues.extend([&host.queue, &edge_agg.queue, &agg_core.queue])
        }
        _ => {}
    }
    for q in queues {
        seen.push(match q.aqm {
            AqmSpec::Choke(choke::Params { m: 7, rule: MatchRule::All, .. }) => "aqm modified_choke (m=7, all)",
            AqmSpec::Choke(choke::Params { rule: MatchRule::Any, .. }) => "aqm choke (any)",
            AqmSpec::Choke(_) => "aqm choke (all)",
            AqmSpec::Red(_) => "aqm red",
            AqmSpec::Threshold(_) => "aqm threshold",
            _ => "aqm drop_tail",
        });
    }
    for w in &spec.workloads {
        seen.push(match w {
            WorkloadSpec::Poisson { sizes: SizeSpec::Fixed { .. }, .. } => "workload poisson fixed",
            WorkloadSpec::Poisson { sizes: SizeSpec::Uniform { .. }, .. } => "workload poisson uniform",
            WorkloadSpec::Poisson { .. } => "workload poisson cdf",
            _ => "workload incast",
        });
    }
    if spec.partitions > 1 {
        seen.push("partitions > 1");
    }
    if spec.host_jitter_ps > 0 {
        seen.push("host jitter");
    }
    let ports = t.iter().find(|t| t.name == "ports").unwrap();
    if ports.u64("evictions").iter().any(|&e| e > 0) {
        seen.push("run: CHOKe evicted queued packets");
    }
    let flows = t.iter().find(|t| t.name == "flows").unwrap();
    if spec.workloads.iter().any(|w| matches!(w, WorkloadSpec::Incast { .. }))
        && flows.f64("round").iter().any(|r| r.is_finite() && *r >= 1.0)
    {
        seen.push("run: a second incast round");
    }
    if flows.f64("fct_s").iter().any(|x| x.is_finite()) {
        seen.push("run: a flow finished");
    }
    seen.sort_unstable();
    seen.dedup();
    let mut m = MIXED_SEEN.lock().unwrap();
    for k in seen {
        *m.entry(k).or_default() += 1;
    }
}

/// Mixed specs that ran (valid ones; refused ones are the mutated share).
static MIXED_RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static MIXED_PARTITIONED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static MIXED_REFUSED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A DCTCP gain: Linux's shifts (2^-k) mostly, else any in (0, 1].
fn gain() -> impl Strategy<Value = f64> {
    prop_oneof![3 => prop_oneof![Just(1.0 / 16.0), Just(0.5), Just(1.0), Just(1.0 / 1024.0)], 1 => 0.001f64..=1.0]
}

fn protocol() -> impl Strategy<Value = ProtocolSpec> {
    prop_oneof![
        prop::bool::ANY.prop_map(ProtocolSpec::newreno),
        (gain(), 0.0f64..=1.0).prop_map(|(g, a)| ProtocolSpec::dctcp(g, a)),
        (gain(), 0.0f64..=1.0).prop_map(|(g, a)| ProtocolSpec::dctcp_improved_fairness(g, a)),
        prop_oneof![
            Just(BaseRttSpec::Min),
            Just(BaseRttSpec::Path),
            // From far below the path's RTT (a queue seen everywhere) to far above it.
            (1u64..400 * US).prop_map(BaseRttSpec::FixedPs),
        ]
        .prop_map(ProtocolSpec::dx),
    ]
}

/// A flow's or class's transport options, valid with its protocol: Linux's DCTCP arithmetic only
/// with a gain it can shift by, ECN-capable ACKs only for an ECN-capable protocol.
#[derive(Clone, Debug)]
struct Endpoint {
    protocol: ProtocolSpec,
    linux: bool,
    sack: Option<bool>,
    ect_acks: Option<bool>,
    min_cwnd: Option<f64>,
    init_cwnd: f64,
    min_rto_ps: Option<u64>,
    delack: bool,
}

impl Endpoint {
    fn tcp(&self) -> TcpSpec {
        let fixed_point_ok = self.protocol.dctcp_g().is_none_or(|g| dctcp_shift_g(g).is_some());
        TcpSpec {
            profile: if self.linux { Profile::Linux } else { Profile::Ns2 },
            sack: self.sack,
            ect_acks: self.ect_acks.filter(|_| self.protocol.ecn_capable()),
            dctcp_fixed_point: (self.linux && !fixed_point_ok).then_some(false),
            ..TcpSpec::default()
        }
    }
    fn delayed_ack(&self) -> Option<DelayedAckSpec> {
        self.delack.then_some(DelayedAckSpec { segments: 2, timeout_ps: 40 * US })
    }
    fn class(&self, share: f64) -> ClassSpec {
        ClassSpec {
            share,
            protocol: self.protocol.clone(),
            min_cwnd_pkt: self.min_cwnd,
            init_cwnd_pkt: self.init_cwnd,
            min_rto_ps: self.min_rto_ps,
            delayed_ack: self.delayed_ack(),
            tcp: self.tcp(),
        }
    }
    fn flow(&self, src: String, dst: String, start_ps: u64, jitter_ps: u64, size: Option<u64>) -> FlowSpec {
        FlowSpec {
            start_ps,
            start_jitter_ps: jitter_ps,
            size_bytes: size,
            min_cwnd_pkt: self.min_cwnd,
            init_cwnd_pkt: self.init_cwnd,
            min_rto_ps: self.min_rto_ps,
            delayed_ack: self.delayed_ack(),
            tcp: self.tcp(),
            ..FlowSpec::long_lived(src, dst, self.protocol.clone())
        }
    }
}

prop_compose! {
    fn endpoint()(
        protocol in protocol(),
        linux in prop::bool::ANY,
        sack in prop::option::of(prop::bool::ANY),
        ect_acks in prop::option::of(prop::bool::ANY),
        min_cwnd in prop::option::of(prop_oneof![Just(1.0f64), Just(2.0)]),
        init_cwnd in prop_oneof![Just(1.0f64), Just(2.0), Just(10.0), 1.0f64..20.0],
        min_rto_ps in prop::option::of(prop_oneof![Just(200 * US), Just(MS), Just(10 * MS)]),
        delack in prop::bool::weighted(0.2),
    ) -> Endpoint {
        Endpoint { protocol, linux, sack, ect_acks, min_cwnd, init_cwnd, min_rto_ps, delack }
    }
}

/// One class, or two splitting the arrivals.
fn classes() -> impl Strategy<Value = Vec<ClassSpec>> {
    prop_oneof![
        endpoint().prop_map(|e| vec![e.class(1.0)]),
        (endpoint(), endpoint(), 0.05f64..0.95).prop_map(|(a, b, x)| vec![a.class(x), b.class(1.0 - x)]),
    ]
}

/// Every discipline, valid against a buffer of `buffer` packets.
fn any_aqm(buffer: u64) -> impl Strategy<Value = AqmSpec> {
    // w_q: ns-2's 0.002, or fast enough that the short runs reach CHOKe's draws above min_th.
    let w_q = prop_oneof![Just(0.002f64), Just(0.05), Just(1.0)];
    let red = (0.0f64..0.6, 0.05f64..1.0, 0.01f64..=1.0, w_q, prop::bool::ANY, prop::bool::ANY, prop::bool::ANY)
        .prop_map(move |(lo, hi, max_p, w_q, gentle, ecn, wait)| {
            // 0 <= min_th < max_th <= buffer
            let max_th = (buffer as f64 * hi).max(1.0).min(buffer as f64);
            let min_th = max_th * lo;
            dcsim_core::aqm::red::Params { min_th, max_th, max_p, w_q, gentle, ecn, wait }
        });
    prop_oneof![
        1 => Just(AqmSpec::drop_tail()),
        1 => (1..buffer.max(2)).prop_map(|k| AqmSpec::threshold(Amount::Packets(k))),
        1 => red.clone().prop_map(AqmSpec::Red),
        3 => (red, 1..=buffer.clamp(1, 12) as u32, prop::bool::ANY, prop::bool::weighted(0.4)).prop_map(
            move |(r, m, any, modified)| {
                // `modified_choke`: m = 7 (within the buffer), match all.
                let (m, rule) = if modified {
                    (7.min(buffer as u32), MatchRule::All)
                } else {
                    (m, if any { MatchRule::Any } else { MatchRule::All })
                };
                let dcsim_core::aqm::red::Params { min_th, max_th, max_p, w_q, gentle, ecn, wait } = r;
                AqmSpec::Choke(choke::Params { min_th, max_th, max_p, w_q, gentle, ecn, wait, m, rule })
            }
        ),
    ]
}

fn queue() -> impl Strategy<Value = QueueSpec> {
    (2u64..300).prop_flat_map(|b| any_aqm(b).prop_map(move |aqm| QueueSpec { capacity: Amount::Packets(b), aqm }))
}

fn fast_rate() -> impl Strategy<Value = u64> {
    prop_oneof![Just(GBPS), Just(10 * GBPS), Just(40 * GBPS)]
}

fn tier() -> impl Strategy<Value = TierSpec> {
    (fast_rate(), prop_oneof![Just(0u64), 100_000u64..5 * US], queue())
        .prop_map(|(rate_bps, delay_ps, queue)| TierSpec { rate_bps, delay_ps, queue })
}

fn topology() -> impl Strategy<Value = TopologySpec> {
    let ecmp = prop::option::of(any::<u64>());
    prop_oneof![
        3 => (1u32..6, fast_rate(), fast_rate(), prop::collection::vec(US..300 * US, 1..3), queue(), prop::option::weighted(0.3, queue()))
            .prop_map(|(senders, bottleneck_bps, access_bps, mut rtt_ps, bottleneck_queue, reverse_queue)| {
                if rtt_ps.len() > 1 {
                    rtt_ps.resize(senders as usize, rtt_ps[0]);
                }
                TopologySpec::Dumbbell { senders, bottleneck_bps, access_bps, rtt_ps, bottleneck_queue, reverse_queue }
            }),
        2 => (1u32..5, 1u32..4, 1u32..4, tier(), tier(), ecmp.clone()).prop_map(
            |(leaves, spines, hosts, host, leaf_spine, ecmp_seed)| TopologySpec::LeafSpine {
                leaves,
                spines,
                // at least two hosts
                hosts_per_leaf: if leaves == 1 { hosts + 1 } else { hosts },
                host,
                leaf_spine,
                ecmp_seed,
            }
        ),
        2 => (prop_oneof![Just(2u32), Just(4)], tier(), tier(), tier(), ecmp).prop_map(
            |(k, host, edge_agg, agg_core, ecmp_seed)| TopologySpec::FatTree { k, host, edge_agg, agg_core, ecmp_seed }
        ),
    ]
}

/// Senders and receivers of a topology: the dumbbell's s0.. and r; a fabric's hosts, all both.
fn ends(t: &TopologySpec) -> (Vec<String>, Vec<String>) {
    let hosts = |n: u32| (0..n).map(|i| format!("h{i}")).collect::<Vec<_>>();
    match t {
        TopologySpec::Dumbbell { senders, .. } => ((0..*senders).map(|i| format!("s{i}")).collect(), vec!["r".into()]),
        TopologySpec::LeafSpine { leaves, hosts_per_leaf, .. } => {
            (hosts(leaves * hosts_per_leaf), hosts(leaves * hosts_per_leaf))
        }
        TopologySpec::FatTree { k, .. } => (hosts(k * k * k / 4), hosts(k * k * k / 4)),
        _ => unreachable!("not drawn"),
    }
}

/// Most partitions of a topology (1: not partitionable).
fn most_parts(t: &TopologySpec) -> u32 {
    match t {
        TopologySpec::LeafSpine { leaves, .. } => *leaves,
        TopologySpec::FatTree { k, .. } => *k,
        _ => 1,
    }
}

fn sizes() -> impl Strategy<Value = SizeSpec> {
    prop_oneof![
        prop_oneof![Just(1u64), Just(1460), Just(1461), 1u64..100_000].prop_map(|bytes| SizeSpec::Fixed { bytes }),
        (1u64..50_000, 0u64..100_000).prop_map(|(a, w)| SizeSpec::Uniform { min_bytes: a, max_bytes: a + w }),
        // A monotone CDF ending at 1 (sizes may start at 0 B; the last is at least 1 B).
        (prop::collection::vec((0.0f64..150_000.0, 0.0f64..1.0), 0..5), 1.0f64..150_000.0).prop_map(
            |(mut pts, last)| {
                let mut s: Vec<f64> = pts.iter().map(|p| p.0.min(last)).collect();
                let mut p: Vec<f64> = pts.iter().map(|p| p.1).collect();
                s.sort_by(f64::total_cmp);
                p.sort_by(f64::total_cmp);
                pts = s.into_iter().zip(p).collect();
                pts.push((last, 1.0));
                SizeSpec::Cdf { points: pts }
            }
        ),
    ]
}

/// A workload over the topology's ends, in the run's first half.
fn workload(senders: Vec<String>, receivers: Vec<String>, duration: u64) -> impl Strategy<Value = WorkloadSpec> {
    let (s2, r2) = (senders.clone(), receivers.clone());
    let everyone: Vec<String> = {
        let mut v = senders.clone();
        v.extend(receivers.iter().filter(|r| !senders.contains(r)).cloned());
        v
    };
    let half = (duration / 2).max(1);
    prop_oneof![
        (0.005f64..0.3, sizes(), classes(), 0..half, prop::option::weighted(0.3, 1..half), prop::bool::weighted(0.2))
            .prop_map(move |(load, sizes, classes, start_ps, stop, on_link)| WorkloadSpec::Poisson {
                load,
                // On a dumbbell, now and then the bottleneck's capacity.
                link: (on_link && r2 == ["r"]).then(|| PortRef { from: "sw".into(), to: "r".into() }),
                sizes,
                senders: s2.clone(),
                receivers: r2.clone(),
                classes,
                start_ps,
                stop_ps: stop.map(|d| start_ps + d),
            }),
        (
            0..everyone.len(),
            prop::collection::vec(1..everyone.len().max(2), 1..6),
            1u64..300_000,
            1u64..4,
            prop_oneof![Just(0u64), 1u64..100 * US],
            0..half,
            classes()
        )
            .prop_map(move |(client, servers, total, rounds, gap_ps, start_ps, classes)| {
                let n = everyone.len();
                let mut servers: Vec<usize> = servers.into_iter().filter(|&d| d < n).collect();
                servers.sort_unstable();
                servers.dedup();
                let servers: Vec<String> = servers.into_iter().map(|d| everyone[(client + d) % n].clone()).collect();
                WorkloadSpec::Incast {
                    client: everyone[client].clone(),
                    total_bytes: total.max(servers.len() as u64),
                    servers,
                    rounds,
                    gap_ps,
                    start_ps,
                    classes,
                }
            }),
    ]
}

prop_compose! {
    fn mixed_base()(topology in topology(), duration in 100 * US..2 * MS)(
        flows in prop::collection::vec(
            (endpoint(), any::<prop::sample::Index>(), any::<prop::sample::Index>(), prop::option::of(1u64..300_000),
             0..duration / 2, prop_oneof![3 => Just(0u64), 1 => 1u64..50 * US]),
            0..4),
        workloads in prop::collection::vec(workload(ends(&topology).0, ends(&topology).1, duration), 0..3),
        parts in prop_oneof![1 => Just(1u32), 2 => 2u32..5],
        topology in Just(topology),
        duration in Just(duration),
        warm in 0.0f64..0.5,
        seed in any::<u64>(),
        jitter in prop_oneof![6 => Just(0u64), 3 => 1u64..5_000_000],
        queue_iv in prop_oneof![Just(1_000_000u64), Just(10_000_000)],
    ) -> Spec {
        let (senders, receivers) = ends(&topology);
        let mut flows: Vec<FlowSpec> = flows
            .into_iter()
            .map(|(e, s, d, size, start, jit)| {
                let src = s.get(&senders).clone();
                let others: Vec<&String> = receivers.iter().filter(|r| **r != src).collect();
                e.flow(src, d.get(&others).to_string(), start, jit, size)
            })
            .collect();
        let mut workloads = workloads;
        let mut topology = topology;
        // A partitioned run needs a fabric without CHOKe and incast (`validate_partitions`).
        let partitions = if most_parts(&topology) > 1 { parts.min(most_parts(&topology)) } else { 1 };
        if partitions > 1 {
            workloads.retain(|w| !matches!(w, WorkloadSpec::Incast { .. }));
            let no_choke = |t: &mut TierSpec| {
                if let AqmSpec::Choke(c) = t.queue.aqm {
                    t.queue.aqm = AqmSpec::Red(c.red());
                }
            };
            match &mut topology {
                TopologySpec::LeafSpine { host, leaf_spine, .. } => { no_choke(host); no_choke(leaf_spine); }
                TopologySpec::FatTree { host, edge_agg, agg_core, .. } => { no_choke(host); no_choke(edge_agg); no_choke(agg_core); }
                _ => {}
            }
        }
        if flows.is_empty() && workloads.is_empty() {
            let e = Endpoint { protocol: ProtocolSpec::dx(BaseRttSpec::Path), linux: false, sack: None, ect_acks: None,
                min_cwnd: None, init_cwnd: 10.0, min_rto_ps: None, delack: false };
            flows.push(e.flow(senders[0].clone(), receivers.iter().find(|r| **r != senders[0]).unwrap().clone(), 0, 0, Some(50_000)));
        }
        let mut spec = Spec {
            seed,
            duration_ps: duration,
            warmup_ps: (duration as f64 * warm) as u64,
            packet_bytes: 1500,
            header_bytes: 40,
            topology,
            flows,
            workloads,
            metrics: MetricsSpec { queue_interval_ps: queue_iv, ..MetricsSpec::default() },
            host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
            host_jitter_ps: jitter,
            l2: None,
            partitions,
        };
        // Small runs: a Poisson load scaled down to at most ~MAX_POISSON_FLOWS arrivals on average
        // (a CDF of mostly 1-byte flows at 30 % of 16 x 40 Gbps would be millions).
        let mut ws = std::mem::take(&mut spec.workloads);
        for w in &mut ws {
            if let WorkloadSpec::Poisson { link, senders, .. } = w {
                let cap = spec.load_capacity_bps(link, senders).expect("a link of the network");
                let mut at_full = w.clone();
                if let WorkloadSpec::Poisson { load, .. } = &mut at_full {
                    *load = 1.0;
                }
                let full = at_full.max_flows(duration, cap);
                let WorkloadSpec::Poisson { load, .. } = w else { unreachable!() };
                *load = load.min(MAX_POISSON_FLOWS / full);
            }
        }
        spec.workloads = ws;
        spec
    }
}

/// About the most arrivals a Poisson workload of a mixed spec makes (at load 1 it would make
/// `max_flows(1.0)`; the load is scaled down to this).
const MAX_POISSON_FLOWS: f64 = 150.0;

/// Set one field of a valid spec out of range (`which` picks among the mutations that apply);
/// returns what the error must name.
fn mutate(spec: &mut Spec, which: usize) -> String {
    type M = Box<dyn Fn(&mut Spec) -> String>;
    let mut ms: Vec<M> = vec![
        Box::new(|s| {
            s.host_jitter_ps = MAX_HOST_JITTER_PS + 1;
            "host_jitter_ps".into()
        }),
        Box::new(|s| {
            s.partitions = 0;
            "run.partitions".into()
        }),
        Box::new(|s| {
            s.partitions = if most_parts(&s.topology) > 1 { most_parts(&s.topology) + 1 } else { 2 };
            "run.partitions".into()
        }),
    ];
    if !spec.flows.is_empty() {
        let i = spec.flows.len() - 1;
        ms.push(Box::new(move |s| {
            s.flows[i].protocol = ProtocolSpec::dx(BaseRttSpec::FixedPs(0));
            format!("flows[{i}].R0")
        }));
        ms.push(Box::new(move |s| {
            s.flows[i].protocol = ProtocolSpec::dctcp_improved_fairness(0.0, 1.0);
            format!("flows[{i}].g")
        }));
        ms.push(Box::new(move |s| {
            s.flows[i].protocol = ProtocolSpec::dctcp(0.5, f64::NAN);
            s.flows[i].tcp.dctcp_fixed_point = Some(false);
            format!("flows[{i}].alpha_init")
        }));
        ms.push(Box::new(move |s| {
            s.flows[i].protocol = ProtocolSpec::dx(BaseRttSpec::Min);
            s.flows[i].tcp.ect_acks = Some(true);
            format!("flows[{i}].ect_acks")
        }));
    }
    if let TopologySpec::Dumbbell { bottleneck_queue, .. } = &spec.topology {
        if let AqmSpec::Choke(c) = bottleneck_queue.aqm {
            let cap = match bottleneck_queue.capacity {
                Amount::Packets(n) => n,
                Amount::Bytes(_) => unreachable!(),
            };
            ms.push(Box::new(move |s| {
                if let TopologySpec::Dumbbell { bottleneck_queue, .. } = &mut s.topology {
                    bottleneck_queue.aqm =
                        AqmSpec::Choke(choke::Params { m: if cap % 2 == 0 { 0 } else { cap as u32 + 1 }, ..c });
                }
                "network.buffer.aqm.m".into()
            }));
        }
    }
    if most_parts(&spec.topology) > 1 {
        // What a partitioned run refuses: CHOKe on a tier, an incast workload.
        ms.push(Box::new(|s| {
            s.partitions = 2;
            let red = dcsim_core::aqm::red::Params::example();
            let c = AqmSpec::Choke(choke::Params {
                min_th: red.min_th.min(0.5),
                max_th: 1.0,
                max_p: 0.1,
                w_q: 0.002,
                gentle: false,
                ecn: true,
                wait: true,
                m: 1,
                rule: MatchRule::All,
            });
            match &mut s.topology {
                TopologySpec::LeafSpine { leaf_spine, .. } => leaf_spine.queue.aqm = c,
                TopologySpec::FatTree { agg_core, .. } => agg_core.queue.aqm = c,
                _ => unreachable!(),
            }
            "run.partitions".into()
        }));
        ms.push(Box::new(|s| {
            s.partitions = 2;
            s.workloads.push(WorkloadSpec::Incast {
                client: "h0".into(),
                servers: vec!["h1".into()],
                total_bytes: 10_000,
                rounds: 1,
                gap_ps: 0,
                start_ps: 0,
                classes: vec![ClassSpec {
                    share: 1.0,
                    protocol: ProtocolSpec::newreno(false),
                    min_cwnd_pkt: None,
                    init_cwnd_pkt: 10.0,
                    min_rto_ps: None,
                    delayed_ack: None,
                    tcp: TcpSpec::default(),
                }],
            });
            "run.partitions".into()
        }));
    }
    for (i, w) in spec.workloads.iter().enumerate() {
        let f = move |n: &str| format!("workloads[{i}].{n}");
        match w {
            WorkloadSpec::Poisson { .. } => {
                for bad in [0.0, 1.0, f64::NAN, -0.5] {
                    ms.push(Box::new(move |s| {
                        if let WorkloadSpec::Poisson { load, .. } = &mut s.workloads[i] {
                            *load = bad;
                        }
                        f("load")
                    }));
                }
                let bad_sizes: [(SizeSpec, &str); 5] = [
                    (SizeSpec::Fixed { bytes: 0 }, "sizes.size"),
                    (SizeSpec::Uniform { min_bytes: 10, max_bytes: 9 }, "sizes.max"),
                    (SizeSpec::Uniform { min_bytes: 0, max_bytes: 9 }, "sizes.min"),
                    (SizeSpec::Cdf { points: vec![(100.0, 0.5), (50.0, 1.0)] }, "sizes.points[1]"),
                    (SizeSpec::Cdf { points: vec![(100.0, 0.2), (500.0, 0.9)] }, "sizes.points[1]"),
                ];
                for (bad, name) in bad_sizes {
                    ms.push(Box::new(move |s| {
                        if let WorkloadSpec::Poisson { sizes, .. } = &mut s.workloads[i] {
                            *sizes = bad.clone();
                        }
                        f(name)
                    }));
                }
            }
            WorkloadSpec::Incast { .. } => {
                ms.push(Box::new(move |s| {
                    if let WorkloadSpec::Incast { total_bytes, servers, .. } = &mut s.workloads[i] {
                        *total_bytes = servers.len() as u64 - 1;
                    }
                    f("total")
                }));
                ms.push(Box::new(move |s| {
                    if let WorkloadSpec::Incast { rounds, .. } = &mut s.workloads[i] {
                        *rounds = 0;
                    }
                    f("rounds")
                }));
            }
            _ => {}
        }
        ms.push(Box::new(move |s| {
            let c = match &mut s.workloads[i] {
                WorkloadSpec::Poisson { classes, .. } | WorkloadSpec::Incast { classes, .. } => classes,
                _ => unreachable!(),
            };
            c[0].share *= 0.5;
            f("mix")
        }));
        ms.push(Box::new(move |s| {
            let c = match &mut s.workloads[i] {
                WorkloadSpec::Poisson { classes, .. } | WorkloadSpec::Incast { classes, .. } => classes,
                _ => unreachable!(),
            };
            c[0].protocol = ProtocolSpec::dx(BaseRttSpec::FixedPs(0));
            f("mix[0].R0")
        }));
    }
    let m = &ms[which % ms.len()];
    m(spec)
}

/// Run a valid spec in uneven steps (a partitioned run's ending mid-window) with the invariants
/// checked after each, then check the tables from first principles.
fn run_mixed(spec: &Spec, threads: usize) -> Vec<Table> {
    let mut sim = Sim::new(spec.clone()).unwrap_or_else(|e| panic!("a valid spec refused: {e}"));
    sim.set_threads(threads);
    let end = sim.end().0;
    for t in [end / 7 + 12_345, end / 3, end / 2 + 777, end - end / 5, end] {
        sim.run_until(Time(t.min(end))).expect("a valid run never errs");
        sim.check_invariants().expect("invariants");
    }
    let t = sim.results().expect("results");
    common::check_physics(spec, &t);
    t
}

/// What `sim/partition.rs` and the tests promise of a partitioned run against its one-world run:
/// the same flows (the generators draw alike in every world; the path is the same), each flow
/// finished in both delivering exactly its size in both. Not the same tables.
fn same_flows(one: &[Table], parts: &[Table]) {
    let f1 = one.iter().find(|t| t.name == "flows").unwrap();
    let f2 = parts.iter().find(|t| t.name == "flows").unwrap();
    assert_eq!(f1.rows(), f2.rows(), "flow count");
    for c in ["src", "dst"] {
        assert_eq!(format!("{:?}", f1.get(c)), format!("{:?}", f2.get(c)), "{c}");
    }
    for c in ["start_s", "size_bytes", "ideal_fct_s"] {
        let (a, b) = (f1.f64(c), f2.f64(c));
        let diff = a.iter().zip(b).position(|(x, y)| x.to_bits() != y.to_bits());
        assert!(diff.is_none(), "{c}: first difference at flow {diff:?}");
    }
    let (fct1, fct2) = (f1.f64("fct_s"), f2.f64("fct_s"));
    let (d1, d2) = (f1.u64("delivered_bytes_whole_run"), f2.u64("delivered_bytes_whole_run"));
    for i in 0..f1.rows() {
        if fct1[i].is_finite() && fct2[i].is_finite() {
            assert_eq!(d1[i], d2[i], "flow {i}");
        }
    }
}

proptest! {
    // 128 cases in CI (a few seconds); PROPTEST_CASES=3000 (with the filter `mixed`) for the long profile.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(128),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mixed_specs_keep_the_invariants_replay_and_name_bad_fields(
        spec in mixed_base(),
        bad in prop::option::weighted(0.15, any::<usize>()),
    ) {
        use std::sync::atomic::Ordering::Relaxed;
        let mut spec = spec;
        if let Some(which) = bad {
            let field = mutate(&mut spec, which);
            match Sim::new(spec.clone()) {
                Ok(_) => panic!("accepted a spec with {field} out of range"),
                Err(e) => {
                    let msg = e.to_string();
                    prop_assert!(msg.contains(&format!("{field}:")), "expected an error naming {field}: {msg}");
                    MIXED_REFUSED.fetch_add(1, Relaxed);
                }
            }
            return Ok(());
        }
        MIXED_RUNS.fetch_add(1, Relaxed);
        let t = run_mixed(&spec, 1);
        let again = run_mixed(&spec, 2);
        // Debug prints every f64 exactly (shortest round-trip form) and NaN == NaN.
        prop_assert_eq!(format!("{t:?}"), format!("{again:?}"));
        tally(&spec, &t);
        if spec.partitions > 1 {
            MIXED_PARTITIONED.fetch_add(1, Relaxed);
            let one = run_mixed(&Spec { partitions: 1, ..spec.clone() }, 1);
            same_flows(&one, &t);
        }
    }
}

#[test]
fn zz_report_mixed_runs() {
    use std::sync::atomic::Ordering::Relaxed;
    eprintln!(
        "fuzz mixed: {} valid specs ran ({} partitioned), {} bad fields named",
        MIXED_RUNS.load(Relaxed),
        MIXED_PARTITIONED.load(Relaxed),
        MIXED_REFUSED.load(Relaxed)
    );
    for (what, n) in MIXED_SEEN.lock().unwrap().iter() {
        eprintln!("  {n:6} specs with {what}");
    }
}
