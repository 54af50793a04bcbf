//! The coexistence paper's engine pieces: the single-rooted tree, CHOKe in a running network,
//! generated flows (Poisson, incast) with their FCT lower bound, and bounded memory.

mod common;
use common::*;
use dcsim_core::metrics::Table;
use dcsim_core::scenario::*;
use dcsim_core::units::Time;
use dcsim_core::workload::{ClassSpec, SizeSpec, WorkloadSpec};
use dcsim_core::Sim;

/// The paper's tree: h0, h1 in rack 0, h2 in rack 1, 10 Gbps everywhere but h2's 1 Gbps link,
/// RTT 250 us across the root, 250-packet switch buffers.
fn tree(aqm: AqmSpec, flows: Vec<FlowSpec>, workloads: Vec<WorkloadSpec>, duration_ps: u64) -> Spec {
    Spec {
        seed: 3,
        duration_ps,
        warmup_ps: 0,
        packet_bytes: 1500,
        header_bytes: 40,
        topology: TopologySpec::Tree {
            racks: vec![2, 1],
            host_bps: 10 * GBPS,
            core_bps: 10 * GBPS,
            bottleneck_bps: Some(GBPS),
            bottleneck_hosts: vec!["h2".into()],
            rtt_ps: 250 * US,
            queue: QueueSpec { capacity: Amount::Packets(250), aqm },
        },
        flows,
        workloads,
        metrics: MetricsSpec::default(),
        host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
        host_jitter_ps: 0,
        l2: None,
        partitions: 1,
    }
}

fn choke(min_th: f64, m: u32, ecn: bool) -> AqmSpec {
    AqmSpec::Choke(dcsim_core::aqm::choke::Params {
        min_th,
        max_th: 100.0,
        max_p: 0.1,
        w_q: 0.002,
        gentle: false,
        ecn,
        wait: true,
        m,
        rule: dcsim_core::aqm::MatchRule::All,
    })
}

fn class(share: f64, protocol: ProtocolSpec) -> ClassSpec {
    ClassSpec {
        share,
        protocol,
        min_cwnd_pkt: Some(2.0),
        init_cwnd_pkt: 2.0,
        min_rto_ps: Some(10 * MS),
        delayed_ack: None,
        tcp: Default::default(),
    }
}

fn poisson(load: f64, sizes: SizeSpec) -> WorkloadSpec {
    WorkloadSpec::Poisson {
        load,
        link: Some(PortRef { from: "tor1".into(), to: "h2".into() }),
        sizes,
        senders: vec!["h0".into(), "h1".into()],
        receivers: vec!["h2".into()],
        classes: vec![class(0.5, dctcp(1.0 / 16.0)), class(0.5, ProtocolSpec::newreno(true))],
        start_ps: 0,
        stop_ps: None,
    }
}

fn run_checked(spec: Spec, steps: u64) -> (Sim, Vec<Table>) {
    let mut sim = Sim::new(spec).expect("valid spec");
    let end = sim.end().0;
    for k in 1..=steps {
        sim.run_until(Time(end / steps * k)).expect("run");
        sim.check_invariants().expect("invariants");
    }
    sim.run().expect("run");
    sim.check_invariants().expect("invariants");
    let t = sim.results().expect("results");
    (sim, t)
}

#[test]
fn tree_paths_have_the_papers_rtt_and_a_lone_flow_completes_in_its_ideal_time() {
    // One packet h0 -> h2: 250 us of propagation, 1500 B on three 10 Gbps hops (1.2 us each) and
    // the 1 Gbps hop (12 us), the 40 B ACK back on the 1 Gbps hop (0.32 us) and three 10 Gbps hops
    // (0.032 us each): 266.016 us. 100 full packets with a window that never limits: the first
    // crosses the three fast hops (3.6 us), the 1 Gbps hop sends all 100 back to back (1200 us),
    // then the ACK returns: 250 + 3.6 + 1200 + 0.416 = 1454.016 us.
    for (size, expect_ps) in [(1460u64, 266_016_000u64), (146_000, 1_454_016_000)] {
        let f = FlowSpec {
            size_bytes: Some(size),
            init_cwnd_pkt: 200.0,
            ..FlowSpec::long_lived("h0", "h2", ProtocolSpec::newreno(false))
        };
        let (_, t) = run_checked(tree(AqmSpec::drop_tail(), vec![f], vec![], 10 * MS), 4);
        let fl = table(&t, "flows");
        let fct_ps = (fl.f64("fct_s")[0] * 1e12).round() as u64;
        let ideal_ps = (fl.f64("ideal_fct_s")[0] * 1e12).round() as u64;
        assert_eq!(ideal_ps, expect_ps, "ideal FCT from the path");
        assert_eq!(fct_ps, expect_ps, "a lone window-unlimited flow takes exactly its ideal time");
        assert_eq!(fl.f64("slowdown")[0], 1.0);
    }
    // Names and the default monitor: the ToR port towards the bottleneck host.
    let (sim, t) =
        run_checked(tree(AqmSpec::drop_tail(), vec![FlowSpec::long_lived("h0", "h2", dctcp(0.0625))], vec![], MS), 1);
    let names: Vec<&str> = sim.network().nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, vec!["root", "tor0", "h0", "h1", "tor1", "h2"]);
    let p = table(&t, "ports");
    let mon: Vec<usize> = (0..p.rows()).filter(|&i| p.bool("monitored")[i]).collect();
    assert_eq!(mon.len(), 1);
    assert_eq!((strs(p, "src")[mon[0]], strs(p, "dst")[mon[0]]), ("tor1", "h2"));
    assert_eq!(p.f64("rate_bps")[mon[0]], 1e9);
}

#[test]
fn choke_keeps_packet_conservation_and_exact_per_flow_drops() {
    // Long-lived DCTCP and ECN-less NewReno plus Poisson short flows through CHOKe (m = 1 and the
    // paper's m = 7), with ECN off so that victims are dropped from the queue. Invariants are
    // checked at 20 points (conservation, queue bytes, one arrival event per non-empty pipe).
    // Only data packets queue (every ACK path is 10 Gbps or idle), so every drop is a data packet
    // of some flow: the flows' drop counters add up to the ports' drops exactly.
    for m in [1u32, 7] {
        let flows = vec![
            FlowSpec::long_lived("h0", "h2", dctcp(1.0 / 16.0)),
            FlowSpec { start_ps: 3 * MS, ..FlowSpec::long_lived("h1", "h2", ProtocolSpec::newreno(false)) },
        ];
        let w = vec![poisson(0.2, SizeSpec::Uniform { min_bytes: 10_000, max_bytes: 50_000 })];
        let (_, t) = run_checked(tree(choke(20.0, m, false), flows, w, 300 * MS), 20);
        let p = table(&t, "ports");
        let port_drops: u64 = p.u64("drops_whole_run").iter().sum();
        let evictions: u64 = p.u64("evictions").iter().sum();
        let fl = table(&t, "flows");
        let flow_drops: u64 = fl.u64("drops_whole_run").iter().sum();
        assert!(evictions > 0, "m = {m}: CHOKe evicted nothing");
        assert_eq!(flow_drops, port_drops, "m = {m}");
        let c = table(&t, "counters");
        assert_eq!(c.u64("dropped_pkts")[0], port_drops);
        // A finished flow received each byte exactly once (an evicted packet was never delivered;
        // its retransmission was).
        let (size, fct, got) = (fl.f64("size_bytes"), fl.f64("fct_s"), fl.u64("delivered_bytes_whole_run"));
        let finished: Vec<usize> = (0..fl.rows()).filter(|&i| fct[i].is_finite()).collect();
        assert!(finished.len() > 50, "m = {m}: {} short flows finished", finished.len());
        for &i in &finished {
            assert_eq!(got[i] as f64, size[i], "flow {i}");
        }
    }
}

#[test]
fn every_fct_is_at_least_its_ideal() {
    // Short flows over busy long-lived flows: queueing, marks and losses only add to the ideal.
    let flows = vec![
        FlowSpec::long_lived("h0", "h2", dctcp(1.0 / 16.0)),
        FlowSpec::long_lived("h1", "h2", ProtocolSpec::newreno(true)),
    ];
    let cdf = SizeSpec::Cdf { points: vec![(1000.0, 0.0), (1460.0, 0.5), (100_000.0, 1.0)] };
    let (_, t) = run_checked(tree(choke(30.0, 7, true), flows, vec![poisson(0.3, cdf)], 200 * MS), 5);
    let fl = table(&t, "flows");
    let (fct, ideal, slow) = (fl.f64("fct_s"), fl.f64("ideal_fct_s"), fl.f64("slowdown"));
    let mut n = 0;
    for i in 0..fl.rows() {
        if fct[i].is_finite() {
            n += 1;
            assert!(fct[i] >= ideal[i] - 1e-12, "flow {i}: FCT {} < ideal {}", fct[i], ideal[i]);
            assert!(slow[i] >= 1.0 - 1e-9);
            // the ideal includes at least the 250 us propagation RTT
            assert!(ideal[i] >= 250e-6);
        }
    }
    assert!(n > 100, "{n} flows finished");
}

#[test]
fn thousands_of_short_flows_keep_one_row_each_and_free_their_state() {
    // 20 % of 1 Gbps with 10-50 KB flows for 12 s: about 10 000 flows. Flows in the system at once
    // stay few (the link is 20 % busy: an M/G/1-like system with mean ~0.25 flows waiting);
    // we sample the count of flows with transport state 120 times and require it below 60
    // (listed flows: none). The flows table has one row per generated flow.
    let w = vec![poisson(0.2, SizeSpec::Uniform { min_bytes: 10_000, max_bytes: 50_000 })];
    let mut spec = tree(choke(30.0, 7, true), vec![], w, 12 * 1000 * MS);
    spec.metrics.throughput_interval_ps = 100 * MS;
    let mut sim = Sim::new(spec).unwrap();
    let end = sim.end().0;
    let mut most = 0;
    for k in 1..=120 {
        sim.run_until(Time(end / 120 * k)).unwrap();
        most = most.max(sim.active_flows());
    }
    sim.check_invariants().unwrap();
    let created = sim.flows_created();
    let t = sim.results().unwrap();
    let fl = table(&t, "flows");
    assert!(created > 9_000, "{created} flows");
    assert_eq!(fl.rows(), created);
    assert!(most < 60, "{most} flows held transport state at once");
    let wl = table(&t, "workloads");
    assert_eq!(wl.u64("flows")[0] as usize, created);
    // realised load within 5 sd of the compound-Poisson spread (0.2 +- 5 x 0.0026)
    let load = wl.f64("realised_load")[0];
    assert!((load - 0.2).abs() < 5.0 * 0.0026, "realised load {load}");
    // Throughput and cwnd series cover listed flows only: none here.
    assert_eq!(table(&t, "throughput").rows(), 0);
}

#[test]
fn incast_rounds_follow_each_other_and_record_their_completion() {
    // One switch, 1 Gbps everywhere (Section V-A), client h0, 20 servers, 1 MB per round, 5
    // rounds separated by 100 us. Each round cannot complete faster than 1 MB at 1 Gbps (8 ms).
    let spec = Spec {
        topology: TopologySpec::Tree {
            racks: vec![21],
            host_bps: GBPS,
            core_bps: GBPS,
            bottleneck_bps: None,
            bottleneck_hosts: vec![],
            rtt_ps: 250 * US,
            queue: QueueSpec { capacity: Amount::Packets(250), aqm: choke(70.0, 7, true) },
        },
        workloads: vec![WorkloadSpec::Incast {
            client: "h0".into(),
            servers: (1..=20).map(|i| format!("h{i}")).collect(),
            total_bytes: 1_000_000,
            rounds: 5,
            gap_ps: 100 * US,
            start_ps: MS,
            classes: vec![class(1.0, dctcp(1.0 / 16.0))],
        }],
        ..tree(AqmSpec::drop_tail(), vec![], vec![], 500 * MS)
    };
    let (_, t) = run_checked(spec, 10);
    let r = table(&t, "rounds");
    assert_eq!(r.rows(), 5);
    let (start, end, comp) = (r.f64("start_s"), r.f64("end_s"), r.f64("completion_s"));
    assert!((start[0] - 1e-3).abs() < 1e-15);
    for k in 0..5 {
        assert!(comp[k] >= 8e-3, "round {k}: {} s", comp[k]);
        assert!((end[k] - start[k] - comp[k]).abs() < 1e-12);
        if k > 0 {
            assert!((start[k] - (end[k - 1] + 100e-6)).abs() < 1e-12, "round {k} starts a gap after the last");
        }
    }
    let fl = table(&t, "flows");
    assert_eq!(fl.rows(), 100);
    let total: u64 = fl.u64("delivered_bytes_whole_run").iter().sum();
    assert_eq!(total, 5 * 1_000_000);
    // The round ends with its last response.
    let (round, fct, st) = (fl.f64("round"), fl.f64("fct_s"), fl.f64("start_s"));
    for (k, &end_k) in end.iter().enumerate().take(5) {
        let last = (0..fl.rows()).filter(|&i| round[i] == k as f64).map(|i| st[i] + fct[i]).fold(0.0, f64::max);
        assert!((last - end_k).abs() < 1e-12);
    }
}

#[test]
fn generated_flows_are_bit_identical_per_seed() {
    let mk = |seed| {
        let w = vec![poisson(0.25, SizeSpec::Uniform { min_bytes: 2_000, max_bytes: 80_000 })];
        let mut s = tree(choke(20.0, 7, true), vec![FlowSpec::long_lived("h0", "h2", dctcp(0.0625))], w, 100 * MS);
        s.seed = seed;
        run_checked(s, 1).1
    };
    // Compared as text (NaN != NaN as a float, but prints the same).
    let text = |t: Vec<Table>| format!("{t:?}");
    assert!(text(mk(5)) == text(mk(5)), "the same seed gave different tables");
    assert!(text(mk(5)) != text(mk(6)), "another seed gave the same tables");
}

#[test]
fn bad_workloads_and_trees_name_the_field() {
    let base = || tree(choke(20.0, 7, true), vec![], vec![poisson(0.2, SizeSpec::Fixed { bytes: 1000 })], MS);
    let e = |s: Spec| Sim::new(s).err().expect("invalid").to_string();
    for load in [0.0, 1.0, 1.5, -0.1] {
        let mut s = base();
        if let WorkloadSpec::Poisson { load: l, .. } = &mut s.workloads[0] {
            *l = load;
        }
        let m = e(s);
        assert!(m.starts_with("workloads[0].load:") && m.contains("0 < load < 1"), "{m}");
    }
    let mut s = base();
    if let TopologySpec::Tree { queue, .. } = &mut s.topology {
        queue.aqm = choke(20.0, 251, true);
    }
    let m = e(s);
    assert!(m.starts_with("network.buffer.aqm.m:") && m.contains("1 <= m <= buffer (250"), "{m}");
    let mut s = base();
    if let TopologySpec::Tree { queue, .. } = &mut s.topology {
        queue.aqm = choke(20.0, 0, true);
    }
    assert!(e(s).starts_with("network.buffer.aqm.m:"));
    let incast = |n: usize, total: u64| WorkloadSpec::Incast {
        client: "h0".into(),
        servers: (1..=n).map(|i| format!("h{}", i % 3)).collect(),
        total_bytes: total,
        rounds: 1,
        gap_ps: 0,
        start_ps: 0,
        classes: vec![class(1.0, dctcp(0.0625))],
    };
    let mut s = base();
    s.workloads = vec![incast(0, 10)];
    assert!(e(s).starts_with("workloads[0].n:"));
    let mut s = base();
    s.workloads = vec![incast(2, 1)];
    let m = e(s);
    assert!(m.starts_with("workloads[0].total:") && m.contains("allowed n (2)"), "{m}");
    let mut s = base();
    if let TopologySpec::Tree { racks, .. } = &mut s.topology {
        *racks = vec![0, 0];
    }
    assert!(e(s).starts_with("network.hosts:"));
    let mut s = base();
    if let WorkloadSpec::Poisson { sizes, .. } = &mut s.workloads[0] {
        *sizes = SizeSpec::Cdf { points: vec![(10.0, 0.0), (5.0, 1.0)] };
    }
    let m = e(s);
    assert!(m.starts_with("workloads[0].sizes.points[1]:") && m.contains("not monotone"), "{m}");
    let mut s = base();
    if let WorkloadSpec::Poisson { link: Some(link), .. } = &mut s.workloads[0] {
        link.to = "h1".into();
    }
    assert!(e(s).starts_with("workloads[0].link:"));
    let mut s = base();
    if let WorkloadSpec::Poisson { senders, .. } = &mut s.workloads[0] {
        senders[0] = "tor0".into();
    }
    assert!(e(s).starts_with("workloads[0].senders[0]:"));
}

#[test]
fn a_trace_replays_its_flows_and_bad_traces_name_the_field() {
    use dcsim_core::workload::TraceArrival;
    let arr = TraceArrival::new;
    let trace = |a: Vec<TraceArrival>| WorkloadSpec::Trace {
        arrivals: a.into_iter().collect(),
        classes: vec![class(1.0, dctcp(0.0625))],
        start_ps: 0,
    };
    // Three flows, listed out of order, and one due at the end of the run (never starts).
    let spec = tree(
        choke(20.0, 7, true),
        vec![],
        vec![trace(vec![
            arr(200 * US, "h0", "h2", 5000),
            arr(0, "h1", "h2", 1000),
            arr(MS, "h2", "h0", 9),
            arr(0, "h0", "h1", 20_000),
        ])],
        MS,
    );
    let (_, t) = run_checked(spec, 20);
    let fl = table(&t, "flows");
    assert_eq!(fl.f64("start_s"), &[0.0, 0.0, 200e-6]);
    assert_eq!(fl.f64("size_bytes"), &[1000.0, 20_000.0, 5000.0]);
    assert!(fl.f64("fct_s").iter().all(|x| x.is_finite()), "every flow finished");
    let e =
        |w: WorkloadSpec| Sim::new(tree(choke(20.0, 7, true), vec![], vec![w], MS)).err().expect("invalid").to_string();
    assert!(e(trace(vec![])).starts_with("workloads[0].arrivals:"));
    assert!(e(trace(vec![arr(0, "h0", "h1", 0)])).starts_with("workloads[0].arrivals[0].size:"));
    assert!(e(trace(vec![arr(0, "h0", "h0", 5)])).starts_with("workloads[0].arrivals[0].dst:"));
    assert!(e(trace(vec![arr(0, "h0", "h9", 5)])).starts_with("workloads[0].arrivals[0].dst:"));
    assert!(e(trace(vec![arr(0, "h0", "tor0", 5)])).contains("is a switch"));
    // The columns must agree: one entry per flow, host indices within the hosts listed.
    let bad = |edit: &dyn Fn(&mut dcsim_core::workload::TraceArrivals)| {
        let mut a: dcsim_core::workload::TraceArrivals =
            vec![arr(0, "h0", "h1", 5), arr(1, "h1", "h2", 5)].into_iter().collect();
        edit(&mut a);
        e(WorkloadSpec::Trace { arrivals: a, classes: vec![class(1.0, dctcp(0.0625))], start_ps: 0 })
    };
    assert!(bad(&|a| {
        a.size_bytes.pop();
    })
    .starts_with("workloads[0].arrivals.size_bytes: 1 entries for 2 flows"));
    assert!(bad(&|a| a.dst[1] = 3).starts_with("workloads[0].arrivals[1].dst: host index 3 is out of range"));
    assert!(bad(&|a| a.src[0] = 1).starts_with("workloads[0].arrivals[0].dst:"), "h1 -> h1");
    assert!(bad(&|a| a.protocol = vec![None]).starts_with("workloads[0].arrivals.protocol: 1 entries for 2 flows"));
    assert!(bad(&|a| {
        a.protocol = vec![Some(0), Some(1)];
        a.protocols = vec!["dctcp".into()];
    })
    .starts_with("workloads[0].arrivals.protocol[1]: protocol index 1 is out of range; allowed 0 ..= 0"));
    assert!(bad(&|a| {
        a.protocol = vec![Some(0), None];
        a.protocols = vec!["newreno".into()];
    })
    .starts_with(
        r#"workloads[0].arrivals.protocols[0]: "newreno" is no class's protocol; the workload's classes have dctcp"#
    ));
}

#[test]
fn a_trace_that_names_each_flows_protocol_runs_it_with_that_protocol() {
    use dcsim_core::workload::TraceArrival;
    // Of a mix of DCTCP (two classes, g = 1/16 and 1/4) and NewReno, 40 flows: the list names the
    // protocol of the first 30 (in turn NewReno, DCTCP, DCTCP, against any draw) and leaves ten to
    // the draw. A named DCTCP flow is drawn between the two DCTCP classes only.
    let named: Vec<Option<&str>> = (0..40).map(|j| (j < 30).then_some(["newreno", "dctcp", "dctcp"][j % 3])).collect();
    let arrivals = named
        .iter()
        .enumerate()
        .map(|(j, p)| TraceArrival {
            at_ps: j as u64 * 10 * US,
            src: ["h0", "h1"][j % 2].into(),
            dst: "h2".into(),
            size_bytes: 2_000,
            protocol: p.map(String::from),
        })
        .collect();
    let classes = vec![class(0.3, dctcp(0.0625)), class(0.4, ProtocolSpec::newreno(true)), class(0.3, dctcp(0.25))];
    let spec = tree(choke(20.0, 7, true), vec![], vec![WorkloadSpec::Trace { arrivals, classes, start_ps: 0 }], 2 * MS);
    let (_, t) = run_checked(spec, 20);
    let fl = table(&t, "flows");
    let protocols = strs(fl, "protocol");
    assert_eq!(protocols.len(), 40);
    for (j, p) in named.iter().enumerate() {
        if let Some(p) = p {
            assert_eq!(protocols[j], *p, "flow {j}: {protocols:?}");
        }
    }
}

proptest::proptest! {
    // 64 cases in CI; PROPTEST_CASES=10000 for a long run.
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Any trace columns (lengths that disagree, host indices past the list, names that are
    /// switches or nothing, times past the run or the engine's range, sizes of 0 or too many
    /// bytes, protocols past the list or of no class) are refused with an error naming `workloads[0].arrivals...`, or run: then every flow
    /// due before the end has its row, with its size, and packets are conserved.
    #[test]
    fn any_trace_columns_are_refused_by_name_or_replayed(
        hosts in proptest::prop_oneof![
            4 => proptest::strategy::Just(vec!["h0", "h1", "h2"]),
            1 => proptest::collection::vec(proptest::sample::select(vec!["h0", "h1", "h2", "tor0", "x"]), 0..5),
        ],
        flows in proptest::collection::vec((
            proptest::prop_oneof![6 => proptest::sample::select(vec![0u64, 7 * US, MS / 2, MS]), 1 => proptest::strategy::Just(u64::MAX)],
            proptest::prop_oneof![6 => 0u32..3, 1 => 0u32..6],
            proptest::prop_oneof![6 => 0u32..3, 1 => 0u32..6],
            proptest::prop_oneof![6 => proptest::sample::select(vec![1u64, 1460, 20_000]), 1 => proptest::sample::select(vec![0u64, u64::MAX])],
        ), 0..6),
        cut in proptest::prop_oneof![6 => proptest::strategy::Just(None), 1 => proptest::sample::select(vec![Some(0usize), Some(1), Some(2), Some(3)])],
        named in proptest::option::of(proptest::collection::vec(proptest::option::of(0u32..3), 0..6)),
        protocols in proptest::sample::select(vec![vec![], vec!["dctcp"], vec!["newreno", "dctcp"], vec!["dx"]]),
    ) {
        let mut a = dcsim_core::workload::TraceArrivals {
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
            ..Default::default()
        };
        for &(t, s, d, b) in &flows {
            a.at_ps.push(t);
            a.src.push(s);
            a.dst.push(d);
            a.size_bytes.push(b);
        }
        match cut {  // one column a flow short
            Some(0) => { a.src.pop(); }
            Some(1) => { a.dst.pop(); }
            Some(2) => { a.size_bytes.pop(); }
            Some(_) => { a.at_ps.pop(); }
            None => {}
        }
        a.protocol = named.unwrap_or_default();
        a.protocols = protocols.iter().map(|p| p.to_string()).collect();
        let classes = vec![class(0.5, dctcp(0.0625)), class(0.5, ProtocolSpec::newreno(true))];
        let spec = tree(AqmSpec::drop_tail(), vec![], vec![WorkloadSpec::Trace { arrivals: a.clone(), classes, start_ps: 0 }], MS);
        match Sim::new(spec) {
            Err(e) => {
                let msg = e.to_string();
                proptest::prop_assert!(msg.starts_with("workloads[0].arrivals"), "{}", msg);
            }
            Ok(mut sim) => {
                sim.run().expect("a valid trace runs");
                sim.check_invariants().expect("invariants");
                let t = sim.results().expect("results");
                let fl = table(&t, "flows");
                let due: Vec<f64> = (0..a.len()).filter(|&j| a.at_ps[j] < MS).map(|j| a.size_bytes[j] as f64).collect();
                let mut got = fl.f64("size_bytes").to_vec();
                let mut want = due.clone();
                got.sort_by(f64::total_cmp);
                want.sort_by(f64::total_cmp);
                proptest::prop_assert_eq!(got, want);
            }
        }
    }
}
