//! Large worlds inside the documented maxima build and run (issue 6, "Huge counts": a dumbbell
//! of 30 000 senders once aborted in the route table).

mod common;

use common::*;
use dcsim_core::scenario::*;

/// 30 000 senders, one long-lived DCTCP flow each, run for 10 us (one 1500 B packet takes 1.2 us
/// at 10 Gbps, so every sender puts its first packets on the wire): the world builds, every flow
/// starts, and packets are conserved. (Sim::check_invariants is O(ports x events), too slow here.)
#[test]
fn dumbbell_of_30000_senders_builds_and_runs() {
    let n = 30_000;
    let spec = dumbbell(
        n,
        10 * GBPS,
        10 * GBPS,
        100 * US,
        1000,
        AqmSpec::threshold(Amount::Packets(65)),
        dctcp(1.0 / 16.0),
        10 * US,
        0,
    );
    let (sim, tables) = run(spec);
    let c = sim.counters();
    assert_eq!(c.sent_pkts, c.delivered_pkts + c.dropped_pkts + sim.in_flight(), "packet conservation");
    let flows = table(&tables, "flows");
    assert_eq!(flows.rows(), n as usize);
    // Every sender serialised at least its first packet: 10 us > 1.2 us on its own access link.
    assert!(flows.u64("sent_pkts").iter().all(|&s| s >= 1));
    // The nodes: n senders, the two switches' worth of the dumbbell, and the receiver.
    assert!(sim.network().nodes.len() > n as usize);
    // The world is linear in n. A route table with an entry per (node, destination) pair (as
    // before the fix) holds n^2 = 9e8 entries, 3.6 GB at 4 B each; linear state is a node, two
    // ports, a sender and a receiver per flow, well under 8 KB per sender, plus 32 MB for the
    // process itself: 272 MB.
    let peak_bytes = peak_rss_bytes();
    let bound = 32_000_000 + 8_000 * n as u64;
    assert!(peak_bytes < bound, "peak RSS {peak_bytes} B >= {bound} B");
}

/// The process's peak resident set (VmHWM of /proc/self/status), bytes; this file holds one test
/// so the process is that test's.
fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    let kb: u64 = line.split_whitespace().nth(1).and_then(|x| x.parse().ok()).expect("VmHWM in kB");
    kb * 1024
}
