"""Loss recovery without SACK: every fast retransmit answers a loss.

In a network without reordering (one path per flow, FIFO queues) three duplicate ACKs come only
from segments that arrived behind a hole, or from duplicates the sender itself sent. After a
retransmission timeout, go-back-N resends segments the receiver already has, and their duplicate
ACKs reach exactly ``recover`` (all data sent before the timeout). RFC 6582 §3.2 step 1 (ns-2's
careful NewReno) starts no fast retransmit there. Starting one resends in-flight data whose
duplicates start the next: one spurious recovery per round trip with no drop at all.

The setting is coexist-fig7's quick incast (the coexistence paper's Section V-A): a DCTCP flow in
slow start (~230 packets) meets a 90-server incast on a 1 Gbps switch and times out once. The
bound: after warm-up, a flow's fast retransmits are at most its drops (each fast retransmit repairs
at least one dropped segment) plus one for a loss just before the warm-up ends.
"""

from dcsim import Scenario, simulate
from dcsim.experiments.coexistence_packet import incast_scenario


def test_fast_retransmits_need_drops_after_a_timeout_in_slow_start():
    spec = incast_scenario("dctcp", 90, {"duration": 0.3, "warmup": 0.1}, 1)
    flows = simulate(Scenario(**spec)).flows
    background = flows[flows["workload"].isna()]
    assert len(background) == 2
    assert (background["timeouts_whole_run"] >= 1).any(), "the setting must time out a flow"
    for _, f in background.iterrows():
        assert f["fast_retransmits"] <= f["drops"] + 1, (
            f"{f['flow_label']}: {f['fast_retransmits']} fast retransmits after warm-up with {f['drops']} drops "
            f"({f['retransmits']} retransmissions)")


def test_a_timeout_in_recovery_does_not_start_a_cycle_of_burst_losses():
    """A recovery without SACK that ends in a timeout (one hole per round trip, the window
    inflated by every duplicate ACK) must halve the window the recovery set, not the flight the
    inflation sent (ns-2 clears dupwnd_ before halving cwnd_). Halving the flight set ssthresh to
    hundreds of packets; the slow start up to it overflowed the 250-packet buffer, the next
    recovery ended in a timeout again: coexist-fig4's RED at min_th = 90, seed 5, lost 52 133
    packets in 10 s with 444 timeouts, its goodput 863 Mbps of the 973.3 Mbps payload rate.

    The bound: after warm-up the two long flows deliver >= 95 % of the payload rate (the link
    stays busy; a cycle of timeouts idles and wastes it), and the DCTCP flow times out at most
    once a second (the fixed engine: none)."""
    from dcsim.experiments import coexistence_packet as cp

    sc = cp.tree(cp.red(90), {"duration": 3.0, "warmup": 1.0})
    sc["run"]["seed"] = 5
    f = simulate(Scenario(**sc)).flows
    payload_bps = 1e9 * 1460 / 1500
    assert f["goodput_bps"].sum() >= 0.95 * payload_bps, f[["goodput_bps", "timeouts", "drops"]].to_dict("list")
    assert f["timeouts"].iloc[0] <= 2, f[["goodput_bps", "timeouts", "drops"]].to_dict("list")
