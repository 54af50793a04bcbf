"""Which arriving frames a congestion point samples.

The DSM paper's CP "samples the incoming packets with a probability p" (Section II.A): every
arrival, the ones its full buffer drops included. 802.1Qau's CP (QCN) samples on enqueue
(protocols.md §1 pitfalls). Until 2026-12-02 no scheme sampled a dropped frame: a review ran 10 Gbps
DSM sources into a 1 Gbps bottleneck, 97.5 % of arrivals dropped, and found 0.026 % of them sampled
instead of p = 1 %, which slowed DSM's way out of overload ~40-fold.

The number, from the Bernoulli sampling: samples ~ Binomial(arrivals, p), so within
5 standard deviations of p x arrivals (a false alarm once in ~1.7 million runs).
"""

import math

import dcsim

OVERLOAD = """
[network]
topology = "parking_lot"
switches = 2
link = "1Gbps"
host_link = "10Gbps"
delay = "1us"
host_delay = "1us"
buffer = "128KB"
attach = {{ S1 = "C1", S2 = "C1", S3 = "C1", S4 = "C1", S5 = "C1", R1 = "C2", R2 = "C2", R3 = "C2", R4 = "C2", R5 = "C2" }}

[l2]
scheme = "{scheme}"
frame = "1KB"
sources = [
  {{ src = "S1", dst = "R1" }}, {{ src = "S2", dst = "R2" }}, {{ src = "S3", dst = "R3" }},
  {{ src = "S4", dst = "R4" }}, {{ src = "S5", dst = "R5" }},
]

[run]
duration = "20ms"
"""


def _cp_and_port(scheme: str):
    res = dcsim.simulate(dcsim.Scenario.from_toml_str(OVERLOAD.format(scheme=scheme)))
    cp = res.cps.iloc[0]
    p = res.ports[(res.ports.src == "C1") & (res.ports.dst == "C2")].iloc[0]
    return int(cp.samples_whole_run), int(p.arrivals), int(p.drops)


def test_dsm_samples_every_arrival_with_probability_p_dropped_ones_included():
    samples, arrivals, drops = _cp_and_port("dsm")
    assert drops > arrivals / 2, (drops, arrivals)  # the overload the rule matters in
    p = 0.01  # the DSM paper's default (Section V-A), dcsim's too
    assert abs(samples - p * arrivals) <= 5 * math.sqrt(p * (1 - p) * arrivals) + 1, (samples, arrivals, drops)


def test_qcn_samples_enqueued_frames_only():
    # 802.1Qau samples admitted frames by a byte counter, reloaded from 150 000 B down to 18 500 B as
    # the congestion grows, times U(0.85, 1.15) (protocols.md §1): at most one 1 KB frame in
    # 18.5 x 0.85 = 15.7, so at most admitted / 15.7 samples; sampling the dropped arrivals too
    # would take up to 33 times as many here (97 % dropped)
    samples, arrivals, drops = _cp_and_port("qcn")
    admitted = arrivals - drops
    assert drops > arrivals / 2 and 0 < samples <= admitted / 15.7 + 1, (samples, arrivals, drops)
