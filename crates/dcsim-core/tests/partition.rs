//! Partitioned runs (`Spec::partitions`): one world per part of a fabric, run side by side. The
//! results must not depend on the number of threads (nor on anything but the scenario and seed),
//! packets must be conserved over the worlds, and the physics must be the one-world run's: the
//! same generated flows, every flow that finishes in both delivering exactly its size, and the
//! same distribution of flow completion times.

mod common;
use common::*;
use dcsim_core::metrics::Table;
use dcsim_core::scenario::*;
use dcsim_core::units::Time;
use dcsim_core::workload::{ClassSpec, SizeSpec, WorkloadSpec};
use dcsim_core::Sim;

fn tier(rate_bps: u64) -> TierSpec {
    TierSpec {
        rate_bps,
        delay_ps: US,
        queue: QueueSpec { capacity: Amount::Packets(200), aqm: AqmSpec::threshold(Amount::Packets(65)) },
    }
}

fn poisson(hosts: usize, load: f64, sizes: SizeSpec) -> WorkloadSpec {
    let names: Vec<String> = (0..hosts).map(|i| format!("h{i}")).collect();
    WorkloadSpec::Poisson {
        load,
        link: None,
        sizes,
        senders: names.clone(),
        receivers: names,
        classes: vec![ClassSpec {
            share: 1.0,
            protocol: dctcp(1.0 / 16.0),
            min_cwnd_pkt: None,
            init_cwnd_pkt: 10.0,
            min_rto_ps: Some(MS),
            delayed_ack: None,
            tcp: Default::default(),
        }],
        start_ps: 0,
        stop_ps: None,
    }
}

/// A k = 8 fat-tree (128 hosts, 10 Gbps, 1 us links) with two listed long flows across the pods
/// and all-to-all 10-100 KB DCTCP flows at `load` of the host links, for `ms` milliseconds.
fn fat_tree_spec(partitions: u32, load: f64, ms: u64) -> Spec {
    Spec {
        seed: 7,
        duration_ps: ms * MS,
        warmup_ps: MS,
        packet_bytes: 1500,
        header_bytes: 40,
        topology: TopologySpec::FatTree {
            k: 8,
            host: tier(10 * GBPS),
            edge_agg: tier(10 * GBPS),
            agg_core: tier(10 * GBPS),
            ecmp_seed: None,
        },
        flows: vec![
            FlowSpec::long_lived("h0", "h127", dctcp(1.0 / 16.0)),
            FlowSpec::long_lived("h100", "h3", dctcp(1.0 / 16.0)),
        ],
        workloads: vec![poisson(128, load, SizeSpec::Uniform { min_bytes: 10_000, max_bytes: 100_000 })],
        metrics: MetricsSpec::default(),
        host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
        host_jitter_ps: 0,
        l2: None,
        partitions,
    }
}

fn run_with_threads(spec: Spec, threads: usize) -> Vec<Table> {
    let mut sim = Sim::new(spec).expect("valid");
    sim.set_threads(threads);
    assert!((1..=threads.min(sim.partitions())).contains(&sim.threads()));
    sim.run().expect("run");
    sim.results().expect("results")
}

#[test]
fn results_depend_on_the_scenario_not_on_threads() {
    for parts in [2, 4] {
        let spec = fat_tree_spec(parts, 0.4, 4);
        let one = run_with_threads(spec.clone(), 1);
        let two = run_with_threads(spec.clone(), 2);
        let again = run_with_threads(spec, 2);
        assert_eq!(bits(&one), bits(&two), "{parts} partitions: 1 thread vs 2");
        assert_eq!(bits(&two), bits(&again), "{parts} partitions: a rerun");
    }
}

#[test]
fn packets_are_conserved_over_the_worlds_at_every_step() {
    let mut sim = Sim::new(fat_tree_spec(2, 0.5, 4)).expect("valid");
    assert_eq!(sim.partitions(), 2);
    // Steps that end inside windows (the window is 1 us + 32 ns): runs resume mid-window.
    for k in 1..=8u64 {
        sim.run_until(Time(k * MS / 2 + 377_777)).expect("run");
        sim.check_invariants().expect("conservation over the worlds and each world's accounting");
    }
    sim.run().unwrap();
    sim.check_invariants().unwrap();
    let c = sim.counters();
    let t = sim.results().unwrap();
    let cnt = table(&t, "counters");
    assert_eq!(cnt.u64("sent_pkts")[0], c.sent_pkts);
    assert_eq!(
        cnt.u64("sent_pkts")[0],
        cnt.u64("delivered_pkts")[0] + cnt.u64("dropped_pkts")[0] + cnt.u64("in_flight_pkts")[0]
    );
    assert!(cnt.u64("delivered_pkts")[0] > 100_000, "a busy fabric");
}

/// Stepping through a run in small budgets (as the front ends do, for progress) gives the same
/// results as running it in one go.
#[test]
fn budgeted_steps_give_the_same_results() {
    let spec = fat_tree_spec(2, 0.4, 3);
    let whole = run_with_threads(spec.clone(), 2);
    let mut sim = Sim::new(spec).unwrap();
    let end = sim.end();
    let mut calls = 0;
    while !sim.run_until_budget(end, 5_000).unwrap() {
        calls += 1;
    }
    assert!(calls > 10, "{calls} calls");
    assert_eq!(bits(&whole), bits(&sim.results().unwrap()));
}

#[test]
fn physics_match_the_one_world_run() {
    let (one, two) = (run_with_threads(fat_tree_spec(1, 0.4, 6), 1), run_with_threads(fat_tree_spec(2, 0.4, 6), 2));
    let (f1, f2) = (table(&one, "flows"), table(&two, "flows"));
    // The same flows: the generators are the same in every world.
    assert_eq!(f1.rows(), f2.rows());
    assert!(f1.rows() > 1000, "{} flows", f1.rows());
    for col in ["src", "dst"] {
        assert_eq!(strs(f1, col), strs(f2, col), "{col}");
    }
    for col in ["start_s", "size_bytes", "ideal_fct_s"] {
        let (a, b) = (f1.f64(col), f2.f64(col));
        assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()), "{col}");
    }
    // A flow that finished delivered its size, in either run: the delivered bytes of the flows
    // finished in both are equal, flow by flow.
    let (fct1, fct2) = (f1.f64("fct_s"), f2.f64("fct_s"));
    let (d1, d2) = (f1.u64("delivered_bytes_whole_run"), f2.u64("delivered_bytes_whole_run"));
    let size = f1.f64("size_bytes");
    let mut both = 0;
    for i in 0..f1.rows() {
        if fct1[i].is_finite() && fct2[i].is_finite() {
            both += 1;
            assert_eq!(d1[i], d2[i], "flow {i}");
            assert_eq!(d1[i] as f64, size[i], "flow {i}");
        }
    }
    // Nearly all flows finish in both (40 % load, flows started up to 6 ms, run 6 ms).
    let (n1, n2) = (fct1.iter().filter(|x| x.is_finite()).count(), fct2.iter().filter(|x| x.is_finite()).count());
    assert!(both as f64 > 0.9 * n1.max(n2) as f64, "{both} finished in both of {n1} / {n2}");
    // The completion times have the same distribution: the median slowdown of the partitioned run
    // lies between the 40th and 60th percentiles of the one-world run's. (Were the two samples of
    // n > 1000 drawn from one distribution, the median's quantile would have a standard error of
    // 0.5 / sqrt(n) < 0.016: the band is over 6 of them either way.)
    let sorted = |t: &Table| {
        let mut v: Vec<f64> = t.f64("slowdown").iter().copied().filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let (s1, s2) = (sorted(f1), sorted(f2));
    let q = |v: &[f64], p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    let m2 = q(&s2, 0.5);
    assert!(
        q(&s1, 0.4) <= m2 && m2 <= q(&s1, 0.6),
        "median slowdown {m2} vs one world's p40 {} .. p60 {}",
        q(&s1, 0.4),
        q(&s1, 0.6)
    );
    // Every finished flow took at least its ideal time.
    assert!(s2.iter().all(|&x| x >= 1.0 - 1e-9));
    // The listed long flows' goodput: each shares its host link and path with generated flows;
    // equal within 15 % (the runs' windows diverge, their long-run shares do not).
    let (g1, g2) = (f1.f64("goodput_bps"), f2.f64("goodput_bps"));
    for i in 0..2 {
        assert!((g1[i] - g2[i]).abs() < 0.15 * g1[i], "flow {i}: goodput {} vs {}", g1[i], g2[i]);
    }
    // The sampled series, merged from the worlds, have the one-world rows: the same instants and
    // entities in the same order (by time, then the monitored / traced order).
    for (name, id) in [("queue", "port"), ("throughput", "flow"), ("cwnd", "flow")] {
        let (a, b) = (table(&one, name), table(&two, name));
        assert!(a.rows() >= 12, "{name}: {} rows", a.rows());
        let first_diff = a.u64(id).iter().zip(b.u64(id)).position(|(x, y)| x != y);
        assert!(
            a.rows() == b.rows() && first_diff.is_none(),
            "{name}.{id}: rows {} / {}, first difference at {first_diff:?}",
            a.rows(),
            b.rows()
        );
        assert!(a.f64("t_s").iter().zip(b.f64("t_s")).all(|(x, y)| x.to_bits() == y.to_bits()), "{name}.t_s");
    }
    // Ports: each from its owner, utilizations within [0, 1]; the whole-run bytes sent on the
    // host links (edge -> host) match within the bytes of the flows unfinished in either run.
    let (p1, p2) = (table(&one, "ports"), table(&two, "ports"));
    assert_eq!(p1.rows(), p2.rows());
    assert!(p2.f64("utilization").iter().all(|&u| (0.0..=1.0 + 1e-12).contains(&u)));
    let unfinished: f64 =
        (0..f1.rows()).filter(|&i| !(fct1[i].is_finite() && fct2[i].is_finite())).map(|i| size[i].min(1e12)).sum();
    let tx = |p: &Table| p.u64("tx_bytes").iter().sum::<u64>() as f64;
    assert!((tx(p1) - tx(p2)).abs() < 6.0 * unfinished.max(1e6), "tx bytes {} vs {}", tx(p1), tx(p2));
}

#[test]
fn leaf_spine_splits_by_leaves() {
    let mk = |partitions| Spec {
        topology: TopologySpec::LeafSpine {
            leaves: 8,
            spines: 4,
            hosts_per_leaf: 8,
            host: tier(10 * GBPS),
            leaf_spine: tier(40 * GBPS),
            ecmp_seed: None,
        },
        flows: vec![FlowSpec::long_lived("h0", "h63", dctcp(1.0 / 16.0))],
        workloads: vec![poisson(64, 0.3, SizeSpec::Uniform { min_bytes: 10_000, max_bytes: 50_000 })],
        ..fat_tree_spec(partitions, 0.3, 3)
    };
    let a = run_with_threads(mk(4), 1);
    let b = run_with_threads(mk(4), 2);
    assert_eq!(bits(&a), bits(&b));
    let one = run_with_threads(mk(1), 1);
    let (f1, f4) = (table(&one, "flows"), table(&a, "flows"));
    assert_eq!(f1.rows(), f4.rows());
    let fin = |t: &Table| t.f64("fct_s").iter().filter(|x| x.is_finite()).count() as f64;
    assert!((fin(f1) - fin(f4)).abs() < 0.05 * fin(f1), "finished {} vs {}", fin(f1), fin(f4));
}

#[test]
fn what_cannot_be_split_is_refused_naming_the_field() {
    let err = |s: Spec| Sim::new(s).err().map(|e| e.to_string()).unwrap_or_default();
    let base = fat_tree_spec(2, 0.3, 2);
    for (p, want) in [(0, "allowed 1 ..= 64"), (65, "allowed 1 ..= 64"), (9, "allowed 1 ..= 8, the number of pods")] {
        let e = err(Spec { partitions: p, ..base.clone() });
        assert!(e.contains("run.partitions") && e.contains(want), "{p}: {e}");
    }
    let d = dumbbell(4, 10 * GBPS, 10 * GBPS, 100 * US, 100, AqmSpec::drop_tail(), dctcp(1.0 / 16.0), 10 * MS, 0);
    let e = err(Spec { partitions: 2, ..d });
    assert!(e.contains("run.partitions") && e.contains("fat_tree or leaf_spine"), "{e}");
    let mut choke = base.clone();
    if let TopologySpec::FatTree { agg_core, .. } = &mut choke.topology {
        agg_core.queue.aqm = AqmSpec::Choke(dcsim_core::aqm::choke::Params {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            ecn: false,
            wait: true,
            m: 1,
            rule: dcsim_core::aqm::MatchRule::Any,
        });
    }
    let e = err(choke);
    assert!(e.contains("run.partitions") && e.contains("network.tiers.agg_core.aqm"), "{e}");
}

/// Any number of threads, up to one per partition, runs any number of partitions with the same
/// results: 6 partitions on 1 .. 6 threads (4 threads share 6 worlds unevenly).
#[test]
fn uneven_threads_per_partition_give_the_same_results() {
    let spec = fat_tree_spec(6, 0.3, 2);
    let one = bits(&run_with_threads(spec.clone(), 1));
    for threads in [2, 4, 5, 6] {
        assert_eq!(bits(&run_with_threads(spec.clone(), threads)), one, "{threads} threads");
    }
}

/// Windows shorter than `MIN_THREADED_WINDOW_PS` (here: links without propagation delay, so a
/// window is one ACK's serialisation, 32 ns at 10 Gbps) would make the threads meet every few
/// events: the worlds then take turns on one thread by default. Fabrics with 1 us links (windows
/// of 1.032 us) keep a thread per world, as many as the machine has.
#[test]
fn short_windows_run_the_worlds_on_one_thread() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut zero_delay = fat_tree_spec(2, 0.3, 2);
    if let TopologySpec::FatTree { host, edge_agg, agg_core, .. } = &mut zero_delay.topology {
        for t in [host, edge_agg, agg_core] {
            t.delay_ps = 0;
        }
    }
    let sim = Sim::new(zero_delay.clone()).expect("valid");
    assert_eq!((sim.partitions(), sim.threads()), (2, 1));
    let sim = Sim::new(fat_tree_spec(2, 0.3, 2)).expect("valid");
    assert_eq!((sim.partitions(), sim.threads()), (2, cores.min(2)));
    // The same results on one thread as on two, chosen or by default.
    let mut two = Sim::new(zero_delay.clone()).expect("valid");
    two.set_threads(2);
    two.run().expect("run");
    let mut one = Sim::new(zero_delay).expect("valid");
    one.run().expect("run");
    assert_eq!(bits(&one.results().expect("results")), bits(&two.results().expect("results")));
}

#[test]
fn the_worlds_of_a_partitioned_run_share_what_max_memory_leaves_the_queues() {
    // Each world checks its own ports against its allowance. Every world had been left all that
    // max_memory leaves beside the plan, so p worlds could hold p times it (an audit). Now they
    // share it: with the default 1 GB and a k = 8 fat-tree (a plan of a few MB) two worlds get
    // about half of one world's allowance each (within the plans' difference, < 10 %), four a
    // quarter; the least any world gets is its own ports' floor.
    let one = Sim::new(fat_tree_spec(1, 0.3, 2)).unwrap().queue_allowance_bytes();
    for p in [2u32, 4] {
        let each = Sim::new(fat_tree_spec(p, 0.3, 2)).unwrap().queue_allowance_bytes();
        let all = each * p as u128;
        assert!(all <= one && all * 10 >= one * 9, "{p} worlds: {each} B each, one world {one} B");
    }
}
