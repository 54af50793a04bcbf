//! DX in the packet engine against the DX analysis paper (Jiang et al.), Theorems 1-2, and first
//! principles. Setting of the paper's Section 4: many-to-one dumbbell, 10 Gbps, 256 KB buffer,
//! 1500-byte segments.
//!
//! Base RTT. The engine's round trip adds to the propagation delay R0 the serialisation of a data
//! packet and of its ACK on both hops: R0' = R0 + 2 (1500 + 40) 8 / 10^10 s = R0 + 2.464 us. That is
//! the base RTT DX measures ("path"), and the pipe the queue sees, so Theorem 2's fixed point is
//! Q* = (N seg - C R0')/C here (the paper's form with R0 -> R0').

mod common;
use common::*;
use dcsim_core::metrics::Table;
use dcsim_core::scenario::*;

const C_PPS: f64 = 10e9 / (1500.0 * 8.0);
/// Serialisation of a 1500 B packet and a 40 B ACK on the two 10 Gbps hops, s.
const SER_S: f64 = 2.0 * (1500.0 + 40.0) * 8.0 / 10e9;

/// N DX flows, base RTT R0 (propagation), 256 KB drop-tail buffer, initial window 1 segment,
/// flow i starting at i x 100 us.
fn dx_spec(n: u32, r0_us: u64, r0: BaseRttSpec, duration_ms: u64) -> Spec {
    let mut s = dumbbell(
        n,
        10 * GBPS,
        10 * GBPS,
        r0_us * US,
        1,
        AqmSpec::drop_tail(),
        ProtocolSpec::dx(r0),
        duration_ms * MS,
        50 * MS,
    );
    s.topology = match s.topology {
        TopologySpec::Dumbbell { senders, bottleneck_bps, access_bps, rtt_ps, reverse_queue, .. } => {
            TopologySpec::Dumbbell {
                senders,
                bottleneck_bps,
                access_bps,
                rtt_ps,
                bottleneck_queue: QueueSpec { capacity: Amount::Bytes(256_000), aqm: AqmSpec::drop_tail() },
                reverse_queue,
            }
        }
        t => t,
    };
    for (i, f) in s.flows.iter_mut().enumerate() {
        f.init_cwnd_pkt = 1.0;
        f.start_ps = i as u64 * 100 * US;
    }
    s.metrics.cwnd_interval_ps = 10 * US;
    s
}

fn mean_cwnd_after(t: &[Table], t0_s: f64) -> (f64, f64) {
    let c = table(t, "cwnd");
    let ts = c.f64("t_s");
    let w: Vec<f64> = (0..c.rows()).filter(|&i| ts[i] >= t0_s).map(|i| c.f64("cwnd_pkt")[i]).collect();
    (mean(&w), w.iter().cloned().fold(f64::MIN, f64::max))
}

/// Theorem 2: for N >= C R0/seg every window sits at one segment, the link is fully utilized and
/// the queueing delay is Q* = (N seg - C R0)/C.
#[test]
fn theorem2_special_stable_state() {
    for (n, r0_us) in [(50u32, 20u64), (80, 80)] {
        let (_, t) = run(dx_spec(n, r0_us, BaseRttSpec::Path, 150));
        let p = table(&t, "ports");
        let b = bottleneck_row(&t);
        // Windows: every sample after warm-up. Tolerance 2 % (the issue's); at the fixed point
        // W = 1 exactly, so any departure is a flow that left the special state.
        let (w_mean, w_max) = mean_cwnd_after(&t, 0.05);
        assert!((w_mean - 1.0).abs() <= 0.02, "N={n} R0={r0_us}us: mean cwnd {w_mean}");
        assert!(w_max < 2.0, "N={n} R0={r0_us}us: some window reached {w_max}");
        // Utilization >= 99.9 %: the queue never empties at the fixed point.
        let util = p.f64("utilization")[b];
        assert!(util >= 0.999, "N={n}: utilization {util}");
        // Queueing delay within 10 % of Q*: N packets circulate, C R0' of them in the pipe; the
        // queue is an integer number of packets (+-1 pkt = 1.2 us on Q* = 13.5 and 37.5 us).
        let r0p = r0_us as f64 * 1e-6 + SER_S;
        let q_star_s = (n as f64 - C_PPS * r0p) / C_PPS;
        let q_s = p.f64("q_mean_pkt")[b] / C_PPS;
        assert!((q_s - q_star_s).abs() <= 0.10 * q_star_s, "N={n} R0={r0_us}us: Q {q_s} vs Q* {q_star_s}");
        // Every round sees Q > 0: p = 1 (the paper's Table 1 gives p > 0.9999 in this state).
        let f = table(&t, "flows");
        assert!(f.f64("p_decrease").iter().all(|&x| x == 1.0), "N={n}: p {:?}", f.f64("p_decrease"));
        // DX's own measurement of Q agrees with the queue: mean over flows within 10 % of Q*.
        let qd = mean(f.f64("q_delay_mean_s"));
        assert!((qd - q_star_s).abs() <= 0.10 * q_star_s, "N={n}: DX's Q {qd} vs Q* {q_star_s}");
        assert_eq!(p.u64("drops")[b], 0);
    }
}

/// Below Theorem 2's threshold the queue drains to zero now and then (DX keeps a near-zero queue),
/// windows exceed one segment, and the p statistic counts the rounds exactly.
#[test]
fn below_threshold_the_queue_drains_and_p_counts_rounds() {
    let n = 20;
    let (_, t) = run(dx_spec(n, 80, BaseRttSpec::Path, 200));
    let p = table(&t, "ports");
    let b = bottleneck_row(&t);
    assert_eq!(p.f64("q_min_pkt")[b], 0.0, "the queue should empty (DX drops it to zero)");
    let (w_mean, _) = mean_cwnd_after(&t, 0.05);
    // Total window ~ the pipe C R0' (68.7 pkt) plus a small queue: mean W in (C R0'/N, 2 C R0'/N).
    let pipe = C_PPS * (80e-6 + SER_S);
    assert!(w_mean > pipe / n as f64 && w_mean < 2.0 * pipe / n as f64, "mean cwnd {w_mean}");
    let util = p.f64("utilization")[b];
    assert!(util > 0.9, "utilization {util}");
    let f = table(&t, "flows");
    for i in 0..n as usize {
        let (r, d) = (f.u64("rtt_rounds")[i], f.u64("rtt_decreases")[i]);
        // Rounds are RTTs: 150 ms after warm-up / (R0' + queueing), RTT between R0' and R0' + 40 us.
        let rtt_lo = 80e-6 + SER_S;
        assert!(r as f64 <= 0.15 / rtt_lo + 1.0 && r as f64 >= 0.15 / (rtt_lo + 40e-6), "flow {i}: {r} rounds");
        assert!(d > 0 && d < r, "flow {i}: {d} decreases of {r}");
        assert_eq!(f.f64("p_decrease")[i], d as f64 / r as f64);
        assert!(f.u64("rtt_samples_queued")[i] <= f.u64("rtt_samples")[i]);
    }
}

/// The base RTT: "path" is the exact round trip (propagation + serialisation of a data packet and
/// an ACK per hop); "min" converges to it when the flow once sees an empty queue (a lone flow).
#[test]
fn base_rtt_path_is_exact_and_min_finds_it() {
    let (_, t) = run(dx_spec(3, 100, BaseRttSpec::Path, 60));
    let f = table(&t, "flows");
    let exact = 100e-6 + SER_S;
    for &b in f.f64("base_rtt_s") {
        assert!((b - exact).abs() < 1e-15, "path base RTT {b} vs {exact}");
    }
    let (_, t) = run(dx_spec(1, 100, BaseRttSpec::Min, 60));
    let f = table(&t, "flows");
    assert!((f.f64("base_rtt_s")[0] - exact).abs() < 1e-15, "min RTT {}", f.f64("base_rtt_s")[0]);
}

/// DX packets are not ECN-capable: a threshold-marking queue drops them instead of marking (so DX
/// never sees ECN), and no ECN cut ever happens.
#[test]
fn dx_uses_no_ecn() {
    let mut s = dx_spec(80, 80, BaseRttSpec::Path, 80);
    if let TopologySpec::Dumbbell { bottleneck_queue, .. } = &mut s.topology {
        bottleneck_queue.aqm = AqmSpec::threshold(Amount::Packets(100));
    }
    let (_, t) = run(s);
    let f = table(&t, "flows");
    assert!(f.u64("marks_whole_run").iter().all(|&m| m == 0));
    assert!(f.u64("ecn_cuts_whole_run").iter().all(|&m| m == 0));
}

/// Same scenario, same tables (DX has no randomness; the replay must be bit-identical).
#[test]
fn dx_replay_is_bit_identical() {
    let a = bits(&run(dx_spec(30, 80, BaseRttSpec::Min, 60)).1);
    let b = bits(&run(dx_spec(30, 80, BaseRttSpec::Min, 60)).1);
    assert_eq!(a, b);
}
