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
