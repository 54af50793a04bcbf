//! No event fires that cannot record anything (issue 6, "No-op sampling"): a series with nothing
//! to sample schedules no sampling event, whatever its interval. Each run samples at 1 ps, so a
//! sampling event that fired anyway would add (duration / 1 ps) events; the bound asserted is
//! the count of the packet events the run can have, from the link rate and the duration.

mod common;

use common::*;
use dcsim_core::scenario::*;

/// Access and bottleneck rate, bit/s; one 1500 B data packet takes 1.2 us on the wire.
const RATE_BPS: u64 = 10 * GBPS;
const DATA_PKT_PS: u64 = 1500 * 8 * 1_000_000_000_000 / RATE_BPS;
const RTT_PS: u64 = 4 * US;

/// One long-lived DCTCP flow through the dumbbell for `duration_ps`.
fn one_flow(duration_ps: u64) -> Spec {
    dumbbell(
        1,
        RATE_BPS,
        RATE_BPS,
        RTT_PS,
        100,
        AqmSpec::threshold(Amount::Packets(65)),
        dctcp(1.0 / 16.0),
        duration_ps,
        0,
    )
}

/// Upper bound of the events of a run whose senders put at most `data_pkts` data packets on the
/// wire: each data packet arrives at the switch and at the receiver (2), its ACK at the switch
/// and at the sender (2), and may cost a NIC wake-up and a retransmission-timer event (2); plus
/// per flow its start and the warm-up event, and a few to spare.
fn packet_event_bound(data_pkts: u64, flows: u64) -> u64 {
    6 * data_pkts + 2 * flows + 8
}

/// Data packets one sender can serialise in `duration_ps` on its access link, plus the one on
/// the wire at the start.
fn max_data_pkts(duration_ps: u64) -> u64 {
    duration_ps / DATA_PKT_PS + 1
}

fn events(spec: Spec) -> u64 {
    let (sim, _) = run(spec);
    sim.counters().events
}

#[test]
fn nothing_monitored_no_queue_sampling() {
    let d = 10 * US;
    let mut s = one_flow(d);
    s.metrics.queue_interval_ps = 1;
    s.metrics.monitor = Some(vec![]);
    let ev = events(s);
    assert!(ev <= packet_event_bound(max_data_pkts(d), 1), "{ev} events");
}

#[test]
fn nothing_traced_no_throughput_sampling() {
    let d = 10 * US;
    let mut s = one_flow(d);
    s.metrics.throughput_interval_ps = 1;
    s.metrics.trace_flows = Some(vec![]);
    let ev = events(s);
    assert!(ev <= packet_event_bound(max_data_pkts(d), 1) + queue_samples(d), "{ev} events");
}

#[test]
fn nothing_traced_no_cwnd_sampling() {
    let d = 10 * US;
    let mut s = one_flow(d);
    s.metrics.cwnd_interval_ps = 1;
    s.metrics.trace_flows = Some(vec![]);
    let ev = events(s);
    assert!(ev <= packet_event_bound(max_data_pkts(d), 1) + queue_samples(d), "{ev} events");
}

/// Queue samples of the dumbbell's monitored bottleneck at the default interval.
fn queue_samples(duration_ps: u64) -> u64 {
    duration_ps / MetricsSpec::default().queue_interval_ps + 1
}

/// Nothing monitored and nothing traced: no sampling event at all.
#[test]
fn no_series_no_sampling() {
    let d = 10 * US;
    let mut s = one_flow(d);
    s.flows[0].size_bytes = Some(1460);
    s.metrics.throughput_interval_ps = 1;
    s.metrics.cwnd_interval_ps = 1;
    s.metrics.monitor = Some(vec![]);
    s.metrics.trace_flows = Some(vec![]);
    let ev = events(s);
    // One data packet: its events, no sampling.
    assert!(ev <= packet_event_bound(1, 1), "{ev} events");
}

/// A traced finite flow is sampled while it runs, not before its start nor after its end: a
/// 2-packet flow starting at 500 us in a 1 ms run, its window sampled every 1 ns. Its FCT is
/// at most one RTT plus the two data packets' and the ACK's serialisation (the initial window
/// of 10 packets sends both at once; the ACK of 40 B takes 32 ns); doubled for slack.
#[test]
fn finite_traced_flow_sampled_only_while_it_runs() {
    let d = 1000 * US;
    let mut s = one_flow(d);
    s.flows[0].size_bytes = Some(2 * 1460);
    s.flows[0].start_ps = 500 * US;
    s.metrics.cwnd_interval_ps = 1000;
    s.metrics.monitor = Some(vec![]);
    s.metrics.throughput_interval_ps = d; // one throughput sample at the end
    let fct_bound_ps = 2 * (RTT_PS + 3 * DATA_PKT_PS);
    let samples_bound = fct_bound_ps / 1000 + 2;
    let ev = events(s);
    assert!(ev <= packet_event_bound(2, 1) + samples_bound + 1, "{ev} events, bound {}", samples_bound);
}
