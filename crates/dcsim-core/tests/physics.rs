//! Acceptance tests of the packet engine against the papers' settings and first principles.
//!
//! DCTCP analysis paper (Alizadeh, Javanmard, Prabhakar 2011), Fig. 2 setting: C = 10 Gbps,
//! d = 100 us, K = 65 packets, g = 1/16, 1500-byte packets, N = 2, 10, 100.
//! Coexistence paper (Irteza et al.): 1 Gbps bottleneck, 250 us RTT, 250-packet buffer.

mod common;
use common::*;
use dcsim_core::metrics::Table;
use dcsim_core::scenario::*;
use dcsim_core::Sim;

const K: u64 = 65;
/// Bandwidth-delay product C*d of the Fig. 2 setting, packets: 10e9 * 100e-6 / (1500 * 8).
const CD_FIG2: f64 = 10e9 * 100e-6 / (1500.0 * 8.0);

fn fig2(n: u32, duration_ps: u64) -> Spec {
    dumbbell(
        n,
        10 * GBPS,
        10 * GBPS,
        100 * US,
        1000,
        AqmSpec::threshold(Amount::Packets(K)),
        dctcp(1.0 / 16.0),
        duration_ps,
        50 * MS,
    )
}

/// Run, check the invariants that must hold on every run, and return the tables.
fn run_checked(spec: Spec) -> Vec<Table> {
    let mut sim = Sim::new(spec).expect("valid spec");
    // Advance in steps, checking conservation and queue accounting along the way.
    let end = sim.end().0;
    for k in 1..=10 {
        sim.run_until(dcsim_core::units::Time(end / 10 * k)).expect("run");
        sim.check_invariants().expect("invariants");
    }
    sim.run().expect("run");
    sim.check_invariants().expect("invariants");
    let t = sim.results().expect("results");
    // Time never goes back in any sampled series.
    for name in ["queue", "throughput", "cwnd"] {
        let ts = table(&t, name).f64("t_s");
        assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{name}: time went back");
        assert!(ts.iter().all(|&x| x >= 0.0 && x <= end as f64 / 1e12 + 1e-12));
    }
    let c = table(&t, "counters");
    assert_eq!(
        c.u64("sent_pkts")[0],
        c.u64("delivered_pkts")[0] + c.u64("dropped_pkts")[0] + c.u64("in_flight_pkts")[0],
        "packets sent = delivered + dropped + in flight"
    );
    t
}

/// Per-flow means of a cwnd-table column after `t0_s`.
fn mean_after(t: &[Table], col: &str, t0_s: f64) -> f64 {
    let c = table(t, "cwnd");
    let v: Vec<f64> = (0..c.rows()).filter(|&i| c.f64("t_s")[i] >= t0_s).map(|i| c.f64(col)[i]).collect();
    mean(&v)
}

#[test]
fn dctcp_fig2_small_n_full_utilization_queue_near_k() {
    for n in [2, 10] {
        let t = run_checked(fig2(n, 400 * MS));
        let p = table(&t, "ports");
        let b = bottleneck_row(&t);
        let util = p.f64("utilization")[b];
        let q_mean = p.f64("q_mean_pkt")[b];
        assert!(util >= 0.99, "N={n}: utilization {util}");
        // Never empty after warm-up: the link never idled and the queue never drained.
        assert_eq!(p.f64("idle_s")[b], 0.0, "N={n}: link idled");
        assert!(p.f64("q_min_pkt")[b] >= 1.0, "N={n}: queue emptied (min {})", p.f64("q_min_pkt")[b]);
        assert!((q_mean - K as f64).abs() <= 15.0, "N={n}: mean queue {q_mean} not within K +- 15");
        assert_eq!(p.u64("drops")[b], 0, "N={n}: DCTCP should not overflow a 1000-packet buffer");
    }
}

#[test]
fn dctcp_fig2_n100_windows_at_floor_queue_at_fixed_point() {
    let n = 100;
    let t = run_checked(fig2(n, 300 * MS));
    let alpha = mean_after(&t, "alpha", 0.05);
    let w = mean_after(&t, "cwnd_pkt", 0.05);
    assert!(alpha > 0.9, "alpha {alpha}");
    assert!(w <= 3.0, "mean cwnd {w}");
    let p = table(&t, "ports");
    let b = bottleneck_row(&t);
    let q_mean = p.f64("q_mean_pkt")[b];
    // Window conservation: the N windows fill the pipe C*d and the rest waits in the queue.
    let fixed_point = n as f64 * w - CD_FIG2;
    assert!((q_mean - fixed_point).abs() <= 0.10 * fixed_point, "mean queue {q_mean} vs N*w - C*d = {fixed_point}");
    // The paper's number: 2N - C*d ~ 117 ("about 120").
    assert!((q_mean - (2.0 * n as f64 - CD_FIG2)).abs() <= 0.10 * 117.0);
    assert!(p.f64("utilization")[b] >= 0.99);
}

#[test]
fn dctcp_n10_is_fair() {
    // Jain's index of the flows' goodput over 0.5 s after warm-up.
    let t = run_checked(fig2(10, 550 * MS));
    let f = table(&t, "flows");
    let j = jain(f.f64("goodput_bps"));
    assert!(j >= 0.98, "Jain index {j}");
    let total: f64 = f.f64("goodput_bps").iter().sum();
    // Goodput = payload share of line rate (1460/1500) at full utilization.
    let ideal = 10e9 * 1460.0 / 1500.0;
    assert!(total >= 0.98 * ideal && total <= 1.0001 * ideal, "total goodput {total} vs {ideal}");
}

#[test]
fn newreno_droptail_coexistence_setup() {
    // Access links as fast as the bottleneck, and 10x faster (slow-start overshoot is then a
    // burst of many losses in one window, which NewReno without SACK must survive).
    for access in [GBPS, 10 * GBPS] {
        let mut spec = dumbbell(
            2,
            GBPS,
            access,
            250 * US,
            250,
            AqmSpec::drop_tail(),
            ProtocolSpec::newreno(false),
            5000 * MS,
            500 * MS,
        );
        spec.flows[1].start_ps = MS;
        let t = run_checked(spec);
        let p = table(&t, "ports");
        let b = bottleneck_row(&t);
        assert!(p.f64("utilization")[b] >= 0.95, "access {access}: utilization {}", p.f64("utilization")[b]);
        assert_eq!(p.f64("q_max_pkt")[b], 250.0, "the queue reaches the buffer limit");
        assert!(p.u64("drops")[b] > 0);
        let f = table(&t, "flows");
        let g = f.f64("goodput_bps").to_vec();
        let (lo, hi) = (g[0].min(g[1]), g[0].max(g[1]));
        assert!(hi <= 1.25 * lo, "access {access}: throughputs {g:?} not within 25%");
        // Goodput, not only link busy time: little of the link carries repeated data.
        let ceiling = 1e9 * 1460.0 / 1500.0;
        let total: f64 = g.iter().sum();
        assert!(
            total >= 0.93 * ceiling && total <= 1.01 * ceiling,
            "access {access}: total goodput {total} vs {ceiling}"
        );
        // Losses were repaired by fast retransmit.
        assert!(f.u64("fast_retransmits").iter().all(|&x| x > 0));
    }
}

#[test]
fn same_seed_bit_identical_different_seed_differs() {
    let red = AqmSpec::Red(dcsim_core::aqm::red::Params {
        min_th: 20.0,
        max_th: 60.0,
        max_p: 0.1,
        w_q: 0.002,
        gentle: false,
        ecn: false,
        wait: true,
    });
    let mk = |seed| {
        let mut s = dumbbell(
            4,
            10 * GBPS,
            10 * GBPS,
            100 * US,
            200,
            red.clone(),
            ProtocolSpec::newreno(false),
            100 * MS,
            10 * MS,
        );
        s.seed = seed;
        s
    };
    let a = bits(&run_checked(mk(3)));
    let b = bits(&run_checked(mk(3)));
    assert_eq!(a, b, "same scenario and seed must give bit-identical tables");
    let c = bits(&run_checked(mk(4)));
    assert_ne!(a, c, "RED drops are random: another seed should differ");
}

#[test]
fn red_marks_ecn_flows_and_keeps_average_between_thresholds() {
    let red = AqmSpec::Red(dcsim_core::aqm::red::Params {
        min_th: 30.0,
        max_th: 90.0,
        max_p: 0.1,
        w_q: 0.002,
        gentle: false,
        ecn: true,
        wait: true,
    });
    let spec = dumbbell(4, 10 * GBPS, 10 * GBPS, 100 * US, 1000, red, ProtocolSpec::newreno(true), 300 * MS, 50 * MS);
    let t = run_checked(spec);
    let p = table(&t, "ports");
    let b = bottleneck_row(&t);
    assert!(p.u64("marks")[b] > 0);
    assert_eq!(
        p.u64("drops")[b],
        0,
        "ECN-capable flows are marked, not dropped (marks {}, mean q {})",
        p.u64("marks")[b],
        p.f64("q_mean_pkt")[b]
    );
    let q = p.f64("q_mean_pkt")[b];
    assert!(q > 20.0 && q < 100.0, "mean queue {q} should sit near the RED band [30, 90]");
    assert!(p.f64("utilization")[b] >= 0.95);
}

#[test]
fn finite_flows_complete_and_fct_is_at_least_the_ideal() {
    let mut spec = fig2(2, 100 * MS);
    for (i, f) in spec.flows.iter_mut().enumerate() {
        f.size_bytes = Some(1_000_000);
        f.start_ps = i as u64 * MS;
    }
    let t = run_checked(spec);
    let f = table(&t, "flows");
    for i in 0..2 {
        let fct = f.f64("fct_s")[i];
        assert!(fct.is_finite(), "flow {i} did not finish");
        // They finish before the 50 ms warm-up ends: whole-run delivery, none after warm-up.
        assert_eq!(f.u64("delivered_bytes_whole_run")[i], 1_000_000);
        assert_eq!(f.u64("delivered_bytes")[i], 0);
        // Lower bound: one RTT plus serialising 1 MB (with headers) at 10 Gbps.
        let ideal = 100e-6 + 1_000_000.0 * 1500.0 / 1460.0 * 8.0 / 10e9;
        assert!(fct >= ideal, "fct {fct} below the physical bound {ideal}");
        assert!(fct < 20.0 * ideal, "fct {fct} unreasonably long");
    }
}

#[test]
fn delayed_acks_keep_dctcp_working() {
    let mut spec = fig2(10, 200 * MS);
    for f in &mut spec.flows {
        f.delayed_ack = Some(DelayedAckSpec { segments: 2, timeout_ps: 500 * US });
    }
    let t = run_checked(spec);
    let p = table(&t, "ports");
    let b = bottleneck_row(&t);
    assert!(p.f64("utilization")[b] >= 0.99);
    assert!((p.f64("q_mean_pkt")[b] - K as f64).abs() <= 20.0, "mean queue {}", p.f64("q_mean_pkt")[b]);
    // Half as many ACKs as data packets (roughly): sent = data + acks.
    let f = table(&t, "flows");
    let data: u64 = f.u64("sent_pkts_whole_run").iter().sum();
    let c = table(&t, "counters");
    let acks = c.u64("sent_pkts")[0] - data;
    assert!((acks as f64) < 0.7 * data as f64, "acks {acks} data {data}");
}

#[test]
fn graph_topology_routes_over_shortest_path() {
    // h0 - sw0 - sw1 - h1, plus a longer detour sw0 - sw2 - sw3 - sw1 that must not be used.
    let node = |n: &str, k| NodeSpec { name: n.into(), kind: k };
    let link =
        |a: &str, b: &str| LinkSpec { a: a.into(), b: b.into(), rate_bps: 10 * GBPS, delay_ps: 10 * US, queue: None };
    let spec = Spec {
        seed: 1,
        duration_ps: 50 * MS,
        warmup_ps: 0,
        packet_bytes: 1500,
        header_bytes: 40,
        topology: TopologySpec::Graph {
            nodes: vec![
                node("h0", NodeKind::Host),
                node("h1", NodeKind::Host),
                node("sw0", NodeKind::Switch),
                node("sw1", NodeKind::Switch),
                node("sw2", NodeKind::Switch),
                node("sw3", NodeKind::Switch),
            ],
            links: vec![
                link("h0", "sw0"),
                link("sw0", "sw2"),
                link("sw2", "sw3"),
                link("sw3", "sw1"),
                link("sw0", "sw1"),
                link("sw1", "h1"),
            ],
            ecmp_seed: None,
        },
        flows: vec![FlowSpec {
            size_bytes: Some(3_000_000),
            ..FlowSpec::long_lived("h0", "h1", ProtocolSpec::newreno(false))
        }],
        workloads: vec![],
        metrics: MetricsSpec::default(),
        host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
        host_jitter_ps: 0,
        l2: None,
        partitions: 1,
    };
    let t = run_checked(spec);
    let p = table(&t, "ports");
    let (src, dst) = (strs(p, "src"), strs(p, "dst"));
    for i in 0..src.len() {
        let detour = src[i] == "sw2" || src[i] == "sw3" || dst[i] == "sw2";
        if detour {
            assert_eq!(p.u64("tx_bytes")[i], 0, "{} -> {} carried traffic", src[i], dst[i]);
        }
    }
    assert!(table(&t, "flows").f64("fct_s")[0].is_finite());
}

/// One finite NewReno flow alone on an idle dumbbell path: its FCT.
fn lone_flow_fct_s(access_bps: u64, size_bytes: u64) -> f64 {
    let mut spec = dumbbell(
        1,
        10 * GBPS,
        access_bps,
        100 * US,
        1000,
        AqmSpec::drop_tail(),
        ProtocolSpec::newreno(false),
        20 * MS,
        0,
    );
    spec.flows[0].size_bytes = Some(size_bytes);
    let t = run_checked(spec);
    table(&t, "flows").f64("fct_s")[0]
}

#[test]
fn slow_start_doubles_behind_a_nic_no_faster_than_the_path() {
    // A NIC as fast as the bottleneck holds the sender back (host backpressure), which RFC 7661
    // counts as not window-limited; Linux's slow start still grows while cwnd < 2 x the most
    // segments out in the last window, so the window doubles per round trip as with a faster
    // NIC. The only physical difference is the access serialisation (1.2 us vs 0.3 us per
    // packet on each of the two access hops, ~2 us in all), so the FCTs agree within 5 %
    // (decided before measuring; the gated rule alone took 2.0 ms against 1.15 ms, +74 %).
    let slow = lone_flow_fct_s(10 * GBPS, 1_000_000);
    let fast = lone_flow_fct_s(40 * GBPS, 1_000_000);
    assert!(slow.is_finite() && fast.is_finite());
    assert!(slow <= 1.05 * fast, "FCT {slow} s behind a 10 Gbps NIC vs {fast} s behind a 40 Gbps NIC");
}

#[test]
fn a_nic_slower_than_the_path_bounds_the_window() {
    // The reason for the gate: a sender whose NIC (1 Gbps) is slower than the path (10 Gbps)
    // never sees loss, and its window must not grow without bound. Slow start stops at twice
    // the most segments out: the pipe at 1 Gbps (C*d = 1e9 * 100e-6 / 12 000 = 8.3 packets)
    // plus the NIC's backlog (2) plus one in service, so cwnd < 2 * (9 + 2 + 1) + 1 = 25.
    let spec = dumbbell(
        1,
        10 * GBPS,
        GBPS,
        100 * US,
        1000,
        AqmSpec::drop_tail(),
        ProtocolSpec::newreno(false),
        200 * MS,
        50 * MS,
    );
    let t = run_checked(spec);
    let f = table(&t, "flows");
    let w = f.f64("cwnd_final_pkt")[0];
    assert!(w < 25.0, "cwnd {w} grew past twice the segments a 1 Gbps NIC can keep out");
    // ... and the NIC stays busy: goodput at its line rate's payload share.
    let g = f.f64("goodput_bps")[0];
    assert!(g >= 0.99 * 1e9 * 1460.0 / 1500.0, "goodput {g}");
}

#[test]
fn a_flow_paced_at_the_bottleneck_rate_does_not_lock_a_later_flow_out() {
    // Two NewReno flows, 1 Gbps everywhere, drop-tail: the first fills the queue alone and then
    // arrives exactly as each slot frees. Without a coin for that tie it held the full queue and
    // the second flow, starting 300 ms later, got 2.9 Mbps of goodput against 970 Mbps (RFC 2309's
    // "lock-out"). Fair share after it joins: within 25 %, the coexistence test's tolerance.
    let mut spec =
        dumbbell(2, GBPS, GBPS, 250 * US, 250, AqmSpec::drop_tail(), ProtocolSpec::newreno(false), 1000 * MS, 400 * MS);
    spec.flows[1].start_ps = 300 * MS;
    let t = run_checked(spec);
    let g = table(&t, "flows").f64("goodput_bps").to_vec();
    let (lo, hi) = (g[0].min(g[1]), g[0].max(g[1]));
    assert!(hi <= 1.25 * lo, "throughputs {g:?} not within 25 %");
}
