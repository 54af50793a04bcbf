"""Goodput after warm-up cannot exceed what the bottleneck carried after warm-up.

A README walkthrough (2026-12-02) ran 4 DCTCP flows through a 25 Gbps RED queue that drops
(ecn = false): NewReno-style recoveries of several losses a window, one per RTT, let each receiver
hold megabytes out of order. "Delivered after warm-up" counted what it held at the warm-up instant
when a retransmission later filled the hole: 258.1 MB through a link that sent 241.9 MB of payload
after warm-up, 25.8 Gbps of goodput on a 25 Gbps link. Delivered after warm-up now counts only
payload that first reached the receiver after warm-up.

The bound, from first principles: each byte counted crossed the bottleneck after warm-up or was
between it and the receiver at the warm-up instant (one link's propagation and serialisation: a
few packets), so sum(delivered_bytes) <= payload x (tx_pkts after warm-up + the packets that fit
in that link's delay + 1 per flow). Payload 1460 B of each 1500 B packet.
"""

import dcsim

RED25 = """
[network]
topology = "dumbbell"
senders = 4
bottleneck = "25Gbps"
rtt = "50us"
buffer = "500pkt"
aqm = { kind = "red", min_th = "30pkt", max_th = "90pkt", max_p = 0.1, ecn = false }

[[flows]]
count = 4
protocol = "dctcp"
g = 0.0625
start_jitter = "50us"

[run]
duration = "100ms"
warmup = "20ms"
seed = 3
"""


def test_delivered_after_warmup_fits_through_the_bottleneck():
    res = dcsim.simulate(dcsim.Scenario.from_toml_str(RED25))
    port = res.ports[res.ports.monitored].iloc[0]
    in_link = 25e9 * 25e-6 / 12000  # packets on the 25 us of the bottleneck's one-way delay, at most
    bound = 1460 * (int(port.tx_pkts) + in_link + 4)
    delivered = int(res.flows.delivered_bytes.sum())
    assert delivered <= bound, (delivered, bound)
    # the run is one that exercises it: losses after warm-up, recovered by retransmissions
    assert res.flows.retransmits.sum() > 0
    # and the goodput is the link's, not more: 25 Gbps x 1460/1500, within the same few packets
    span = 0.08
    assert res.flows.goodput_bps.sum() <= 25e9 * 1460 / 1500 + 8 * 1460 * (in_link + 4) / span


def test_goodput_after_warm_up_exceeds_the_capacity_by_one_packet_at_most():
    """A packet is counted whole by its arrival after warm-up, though part of its transmission may
    precede warm-up (a review's fuzz: one NewReno flow, 9 000 B packets at 2.5 Gbps, 38 arrivals in a
    window of 1.075 ms that carries 37.3 packets: 2.53 Gbps). The bound, from first principles: the
    window's arrivals left the bottleneck in [warm-up - one packet time, end), so at most
    floor(rate x T / wire bits) + 1 packets: capacity plus one payload."""
    d = {"network": {"topology": "dumbbell", "senders": 1, "bottleneck": "2.5Gbps", "access": "2.5Gbps",
                     "rtt": "50us", "buffer": "100pkt", "packet_bytes": 9000},
         "flows": [{"protocol": "newreno", "count": 1}],
         "run": {"duration": "3ms", "warmup": "1925us"}}
    res = dcsim.simulate(dcsim.Scenario.from_dict(d))
    span_s, wire_bits, payload = 1.075e-3, 9000 * 8, 9000 - 40
    fit = int(2.5e9 * span_s // wire_bits)  # 37 whole packets in the window
    delivered = int(res.flows.delivered_bytes.iloc[0])
    assert delivered <= payload * (fit + 1), (delivered, payload * (fit + 1))
    assert delivered >= payload * (fit - 1)  # and the link was full: it is the edge, not an idle link
