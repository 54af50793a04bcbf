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
        AqmSpec::Threshold { k: Amount::Packets(65) },
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
}
