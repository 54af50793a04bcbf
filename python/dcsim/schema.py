"""The schema of every result table, in one place: each column's unit, window and meaning.

``help(dcsim.Result)`` and the README's "Result tables" section are generated from
:data:`SCHEMA` (a test checks that the README holds exactly :func:`markdown`), and a test checks
that the engine's tables have exactly these columns, so the three never drift apart.

Windows: ``sample`` (a time series, one row per sampling instant), ``after warm-up``
([run.warmup, end]: events at or after the warm-up instant, up to and including the end instant,
and the exact part of every interval after it), ``whole run`` ([0, end]), ``end`` (the value when
the run ended), ``setup``
(fixed by the scenario), ``label`` (added by dcsim for reading, not by the engine).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Col", "SCHEMA", "TABLE_DOCS", "LABEL_COLUMNS", "SUMMARY_TOP", "SUMMARY_DERIVED", "RESULTS_FORMAT", "markdown",
           "docstring"]

#: The format of the results (these tables and the summary): part of a sweep's cache key, so that
#: runs cached by an older format (other columns, other summary keys) are run again, not mixed
#: with new ones. Raise it when a table or the summary gains, loses or changes a column or key.
#: 2: flows.path, summary tiers, workloads[].delivered_*, FCT groups per traffic source.
RESULTS_FORMAT = 2


@dataclass(frozen=True)
class Col:
    name: str
    unit: str
    window: str
    meaning: str


def _c(name: str, unit: str, window: str, meaning: str) -> Col:
    return Col(name, unit, window, meaning)


S, AW, WR, END, SET, LAB = "sample", "after warm-up", "whole run", "end", "setup", "label"

TABLE_DOCS = {
    "queue": "samples of each monitored queue every metrics.queue_interval (for plots; statistics come "
             "from the exact trajectory in `ports` and `queue_hist`; an \"auto\" interval, the default, is "
             "lengthened to fit metrics.max_memory: the one used is in engine_spec.json)",
    "throughput": "each traced flow's goodput over each metrics.throughput_interval (traced: metrics.trace_flows, "
                  "by default the first 100 listed flows; a workload's generated flows only when named by id)",
    "cwnd": "each running traced flow's window, α and SRTT every metrics.cwnd_interval (traced as for throughput: "
            "metrics.trace_flows, by default the first 100 listed flows; a workload's generated flows only when "
            "named by id)",
    "flows": "one row per flow",
    "ports": "one row per egress port (queue + link)",
    "queue_hist": "the exact distribution of each monitored queue's length over time after warm-up (for CDFs)",
    "counters": "packet conservation, one row: sent = delivered + dropped + in flight",
    "workloads": "one row per [[workloads]] entry: offered and realised load, flows generated",
    "rounds": "one row per incast round: when it started and when its last response completed",
    "sources": "one row per L2 rate source ([[l2.sources]]; empty without [l2])",
    "rates": "each sending listed L2 source's rate every l2.rate_interval (not the Poisson short flows)",
    "cps": "one row per L2 congestion point (switch egress port with a CP)",
}

SCHEMA: dict[str, list[Col]] = {
    "queue": [
        _c("t_s", "s", S, "sampling instant"),
        _c("port", "id", SET, "port id (row of `ports`)"),
        _c("port_label", "", LAB, 'the port as "from->to", e.g. "sw->r"'),
        _c("q_pkt", "packets", S, "packets waiting (not counting the one on the wire)"),
        _c("q_bytes", "bytes", S, "bytes waiting"),
    ],
    "throughput": [
        _c("t_s", "s", S, "end of the interval"),
        _c("flow", "id", SET, "flow id (row of `flows`)"),
        _c("flow_label", "", LAB, 'the flow as "src->dst #id", e.g. "s0->r #0"'),
        _c("goodput_bps", "bit/s", S, "payload delivered in order to the receiver over the interval (a retransmission that fills a hole releases what the receiver held at once: one interval can exceed the link's rate)"),
    ],
    "cwnd": [
        _c("t_s", "s", S, "sampling instant"),
        _c("flow", "id", SET, "flow id"),
        _c("flow_label", "", LAB, "the flow, as in `throughput`"),
        _c("cwnd_pkt", "packets", S, "congestion window"),
        _c("alpha", "1", S, "DCTCP's α (NaN for controllers without one)"),
        _c("srtt_s", "s", S, "smoothed RTT (RFC 6298, from ACKs of new data or, with SACK, of newly SACKed data: ns-2's "
            "`newack`, Linux's `tcp_clean_rtx_queue`; NaN before the first sample)"),
    ],
    "flows": [
        _c("flow", "id", SET, "flow id"),
        _c("flow_label", "", LAB, "the flow, as in `throughput`"),
        _c("src", "", SET, "sending host"),
        _c("dst", "", SET, "receiving host"),
        _c("protocol", "", SET, "window controller"),
        _c("start_s", "s", SET, "start time"),
        _c("size_bytes", "bytes", SET, "payload to send (NaN: long-lived)"),
        _c("delivered_bytes", "bytes", AW, "payload delivered in order that first reached the receiver after warm-up (what it held out of order at warm-up crossed the network before: not counted, so goodput stays within the capacity but for one packet: a packet is counted whole by its arrival, though part of its transmission may precede warm-up; e.g. 38 packets of 9 000 B in 1.075 ms at 2.5 Gbps, 2.53 Gbps)"),
        _c("goodput_bps", "bit/s", AW, "delivered_bytes x 8 / (end - warm-up)"),
        _c("sent_pkts", "packets", AW, "data packets sent (retransmissions included)"),
        _c("retransmits", "packets", AW, "data packets sent again (after a timeout go-back-N resends "
                                          "packets that were not lost, so this can exceed the drops)"),
        _c("timeouts", "count", AW, "retransmission timeouts"),
        _c("fast_retransmits", "count", AW, "fast retransmits (3 duplicate ACKs)"),
        _c("marks", "packets", AW, "data packets that arrived CE-marked"),
        _c("ecn_cuts", "count", AW, "window reductions on ECN-Echo"),
        _c("delivered_bytes_whole_run", "bytes", WR, "payload delivered in order"),
        _c("sent_pkts_whole_run", "packets", WR, "data packets sent"),
        _c("retransmits_whole_run", "packets", WR, "data packets sent again"),
        _c("timeouts_whole_run", "count", WR, "retransmission timeouts"),
        _c("marks_whole_run", "packets", WR, "data packets that arrived CE-marked"),
        _c("ecn_cuts_whole_run", "count", WR, "window reductions on ECN-Echo"),
        _c("fct_s", "s", WR, "flow completion time: last ACK - start (NaN: not finished)"),
        _c("cwnd_mean_pkt", "packets", AW, "time-weighted mean window while the flow ran (exact, not sampled; NaN "
                                           "for a flow that did not run after warm-up)"),
        _c("alpha_mean", "1", AW, "time-weighted mean of DCTCP's α while the flow ran (NaN without α, or for a "
                                  "flow that did not run after warm-up)"),
        _c("cwnd_final_pkt", "packets", END, "window when the run ended"),
        _c("alpha_final", "1", END, "α when the run ended (NaN without α)"),
        _c("rtt_rounds", "count", AW, "once-per-RTT window decisions of a delay-based controller (DX)"),
        _c("rtt_decreases", "count", AW, "of those, decisions of eq. (2)'s branch (Q > 0; at W = 1 it leaves the window at 1)"),
        _c("p_decrease", "1", AW, "rtt_decreases / rtt_rounds: the DX paper's p (Table 1); NaN without rounds"),
        _c("q_delay_mean_s", "s", AW, "mean measured queueing delay Q over the rounds (DX)"),
        _c("base_rtt_s", "s", END, "base RTT R0 in use (DX; NaN for the others)"),
        _c("rtt_samples", "count", AW, "RTT samples taken by a delay-based controller"),
        _c("rtt_samples_queued", "count", AW, "of those, samples above the base RTT"),
        _c("drops", "packets", AW, "data packets of the flow dropped in the network (CHOKe evictions included)"),
        _c("drops_whole_run", "packets", WR, "data packets of the flow dropped in the network"),
        _c("ecn_cut_mean_frac", "1", AW, "mean fraction of the window removed per ECN cut (DCTCP: α/2; DCTCP–Improved Fairness: α/2 of W + 1/W per marked ACK; NaN without cuts)"),
        _c("ideal_fct_s", "s", SET, "FCT alone on an empty network with no window limit: the packets store-and-forward "
                                    "through every hop in order, then the last ACK back (for equal packets: propagation RTT "
                                    "+ every wire byte at the path's slowest link + one packet elsewhere; NaN: long-lived)"),
        _c("slowdown", "1", WR, "fct_s / ideal_fct_s (NaN: not finished or long-lived)"),
        _c("workload", "index", SET, "the [[workloads]] entry that generated the flow (NaN: a [[flows]] entry)"),
        _c("round", "index", SET, "incast round of a response (NaN otherwise)"),
        _c("path", "", SET, 'the nodes its data packets cross, e.g. "h0->leaf0->spine2->leaf1->h9" (with ECMP: '
                            "the hashed choice each switch makes for the flow)"),
    ],
    "ports": [
        _c("port", "id", SET, "port id"),
        _c("port_label", "", LAB, 'the port as "from->to"'),
        _c("src", "", SET, "node the port belongs to"),
        _c("dst", "", SET, "node at the other end of its link"),
        _c("monitored", "bool", SET, "its queue is sampled and its distribution kept"),
        _c("rate_bps", "bit/s", SET, "link rate"),
        _c("utilization", "1", AW, "busy time / time, in [0, 1] (a packet on the wire at warm-up counts for its part after it)"),
        _c("busy_s", "s", AW, "time spent serialising"),
        _c("idle_s", "s", AW, "time not serialising"),
        _c("tx_bytes", "bytes", AW, "bytes of the packets whose transmission ended"),
        _c("tx_pkts", "packets", AW, "packets whose transmission ended"),
        _c("arrivals", "packets", AW, "packets offered to the port"),
        _c("drops", "packets", AW, "packets dropped (buffer full or by the discipline)"),
        _c("marks", "packets", AW, "packets CE-marked (decisions to mark: an arrival already CE from an upstream port counts "
                                   "if this port marks it too; a CHOKe victim this port had marked, once)"),
        _c("drops_whole_run", "packets", WR, "packets dropped"),
        _c("marks_whole_run", "packets", WR, "packets CE-marked (as marks)"),
        _c("evictions", "packets", AW, "queued packets dropped by the discipline (CHOKe victims; included in drops)"),
        _c("q_mean_pkt", "packets", AW, "time-weighted mean queue"),
        _c("q_mean_bytes", "bytes", AW, "time-weighted mean queue"),
        _c("q_min_pkt", "packets", AW, "smallest queue held for a positive time (the level at warm-up counts)"),
        _c("q_max_pkt", "packets", AW, "largest queue held for a positive time"),
        _c("q_p50_pkt", "packets", AW, "time-weighted median queue: the smallest level held for at least half the time "
                                        "(whole packets; monitored ports; NaN otherwise)"),
        _c("q_p99_pkt", "packets", AW, "time-weighted 99th percentile: the smallest level at or below which the queue "
                                        "spends 99 % of the time (whole packets; monitored ports)"),
        _c("q_empty_frac", "1", AW, "fraction of time with no packet waiting (monitored ports)"),
    ],
    "queue_hist": [
        _c("port", "id", SET, "port id"),
        _c("port_label", "", LAB, 'the port as "from->to"'),
        _c("q_pkt", "packets", AW, "queue length"),
        _c("time_s", "s", AW, "time spent at this length"),
        _c("frac", "1", AW, "time_s / (end - warm-up)"),
    ],
    "counters": [
        _c("events", "count", WR, "events handled by the engine"),
        _c("sent_pkts", "packets", WR, "packets hosts handed to their NICs (data and ACKs)"),
        _c("delivered_pkts", "packets", WR, "packets that reached their destination host"),
        _c("dropped_pkts", "packets", WR, "packets dropped anywhere"),
        _c("in_flight_pkts", "packets", END, "packets queued, on a wire or propagating"),
        _c("now_s", "s", END, "simulated time reached"),
    ],
    "workloads": [
        _c("workload", "index", SET, "[[workloads]] entry"),
        _c("kind", "", SET, "poisson, incast, trace or permutation"),
        _c("link", "", SET, 'the link whose capacity the load refers to, "from->to", or "hosts": the senders\' '
                            'host links, each loaded by target_load on average (poisson; "" for the other kinds)'),
        _c("link_bps", "bit/s", SET, "its rate; with \"hosts\", the senders' host-link rates summed (poisson; NaN for the other kinds)"),
        _c("target_load", "1", SET, "offered load: generated payload rate / link rate (poisson; NaN for the other kinds)"),
        _c("realised_load", "1", WR, "generated payload bits / (link rate x window_s) (poisson)"),
        _c("window_s", "s", WR, "the part of the arrival window [start, stop) that has passed"),
        _c("flows", "count", WR, "flows generated"),
        _c("bytes", "bytes", WR, "payload of the flows generated (a long-lived flow of a permutation counts none)"),
    ],
    "rounds": [
        _c("workload", "index", SET, "[[workloads]] entry (an incast)"),
        _c("round", "index", WR, "round number"),
        _c("start_s", "s", WR, "start: every response of the round starts then"),
        _c("end_s", "s", WR, "when the round's last response completed (NaN: not by the end)"),
        _c("completion_s", "s", WR, "end_s - start_s"),
        _c("responses", "count", SET, "responses (servers) per round"),
        _c("bytes", "bytes", SET, "payload of the round"),
    ],
    "sources": [
        _c("source", "id", SET, "source id (row of `sources`, `flow` of its frames)"),
        _c("label", "", SET, 'the source as "src->dst", e.g. "S1->R1"'),
        _c("src", "", SET, "sending host"),
        _c("dst", "", SET, "receiving host"),
        _c("scheme", "", SET, "L2 scheme of its reaction point (l2.scheme: qcn, dsm, smcc, ...)"),
        _c("start_s", "s", SET, "first frame"),
        _c("stop_s", "s", SET, "no frame leaves at or after this time"),
        _c("size_bytes", "bytes", SET, "payload of a finite source (NaN: long-lived)"),
        _c("line_rate_bps", "bit/s", SET, "rate of the source's host link (the RP's ceiling)"),
        _c("rate_final_bps", "bit/s", END, "the RP's rate when the run ended"),
        _c("sent_frames", "frames", AW, "frames sent"),
        _c("sent_bytes", "bytes", AW, "bytes sent"),
        _c("delivered_bytes", "bytes", AW, "bytes that reached the destination"),
        _c("dropped_frames", "frames", AW, "frames of this source dropped by a queue (no L2 retransmission)"),
        _c("goodput_bps", "bit/s", AW, "delivered_bytes over the time after warm-up"),
        _c("feedback_frames", "frames", AW, "feedback frames received from congestion points"),
        _c("sent_frames_whole_run", "frames", WR, "frames sent"),
        _c("sent_bytes_whole_run", "bytes", WR, "bytes sent"),
        _c("delivered_bytes_whole_run", "bytes", WR, "bytes that reached the destination (a finished source: its size)"),
        _c("dropped_frames_whole_run", "frames", WR, "frames dropped"),
        _c("feedback_frames_whole_run", "frames", WR, "feedback frames received"),
        _c("loop_delay_mean_s", "s", WR, "realised feedback loop delay: sampled frame's departure -> its feedback's "
                                         "arrival at the source (forward + generation latency + backward)"),
        _c("loop_delay_min_s", "s", WR, "smallest loop delay"),
        _c("loop_delay_max_s", "s", WR, "largest loop delay"),
        _c("fct_s", "s", WR, "finite source: start -> the last of its bytes reached the destination (NaN: "
                             "long-lived, or a frame was dropped: there is no L2 retransmission)"),
        _c("poisson", "index", SET, "the [[l2.poisson]] entry that generated this short flow (NaN: a listed source)"),
    ],
    "rates": [
        _c("t_s", "s", S, "sampling instant"),
        _c("source", "id", SET, "source id (row of `sources`)"),
        _c("source_label", "", LAB, 'the source as "src->dst #id", e.g. "S1->R1 #0"'),
        _c("rate_bps", "bit/s", S, "the reaction point's current rate (QCN: CR)"),
    ],
    "cps": [
        _c("port", "id", SET, "port id (row of `ports`)"),
        _c("label", "", SET, 'the port as "from->to", e.g. "C1->C2"'),
        _c("samples", "frames", AW, "frames sampled"),
        _c("feedback_frames", "frames", AW, "feedback frames sent (a sample with Fb = 0 sends none)"),
        _c("samples_whole_run", "frames", WR, "frames sampled"),
        _c("feedback_frames_whole_run", "frames", WR, "feedback frames sent"),
    ],
}

#: summary.json's top-level keys (Result.summary()); the lists (flows, ports, workloads, tiers,
#: fct_groups, sources) are described by their tables, these rows and SUMMARY_DERIVED.
SUMMARY_TOP: list[Col] = [
    _c("scenario", "", LAB, "the scenario in one line (Scenario.describe())"),
    _c("duration_s", "s", SET, "simulated time"),
    _c("warmup_s", "s", SET, "warm-up: what comes before it is left out of the after-warm-up statistics"),
    _c("seed", "", SET, "the run's random seed"),
    _c("wall_s", "s", END, "wall-clock time the engine took (null when unknown: a Result read back without it)"),
    _c("events", "count", WR, "events the engine handled"),
    _c("events_per_wall_s", "1/s", END, "events / wall_s"),
    _c("packets", "packets", WR, "sent_pkts, delivered_pkts, dropped_pkts, in_flight_pkts: the `counters` "
                                 "table (sent = delivered + dropped + in flight)"),
    _c("goodput_total_bps", "bit/s", AW, "sum of every flow's goodput, listed and generated"),
    _c("goodput_mean_bps", "bit/s", AW, "mean goodput of the listed [[flows]] (null without any)"),
    _c("jain_index", "1", AW, "Jain's index of the listed flows' goodputs (null without any, or when every one of them "
                              "delivered nothing after warm-up)"),
    _c("flows_finished", "count", WR, "flows, listed and generated, that completed by the end, whenever they "
                                      "started (fct_groups count only those that started after warm-up)"),
    _c("after_warmup", "", AW, "totals: delivered_bytes, retransmits, timeouts (of the flows), drops and marks "
                               "(of every port), data_drops (drops of the flows' data packets; the rest are pure "
                               "ACKs or L2 frames)"),
    _c("whole_run", "", WR, "the same totals over the whole run"),
    _c("fct_groups", "", AW, "flow completion statistics of the finite flows that started after warm-up, per "
                             "size bucket, protocol and traffic source (Result.fct_stats(); absent without such "
                             "flows): each entry holds fct_stats()'s columns and fct_group, its label as printed "
                             '(e.g. "dctcp <=10KB", "all <=10KB" over every protocol, "workload 1 (incast): all"); the FCT and slowdown statistics '
                             "cover the `finished` of its `flows` (unfinished flows, the slow ones, are left out, "
                             "so many of them bias the statistics low)"),
    _c("sources", "", AW, "the L2 sources (with L2 sources; absent otherwise): each entry holds columns of the "
                          "`sources` table under the same names (counts after warm-up, rate_final_bps at the end, "
                          "loop delays and fct_s over the whole run)"),
    _c("l2_goodput_total_bps", "bit/s", AW, "sum of the L2 sources' goodput (with L2 sources; absent otherwise)"),
    _c("l2_jain_index", "1", AW, "Jain's index of the goodputs of the L2 sources without a size, the long-lived "
                                 "ones (null without any; absent without L2 sources)"),
    _c("l2_dropped_frames", "frames", AW, "frames of the L2 sources dropped (with L2 sources; absent otherwise)"),
    _c("l2_drop_pct", "%", AW, "l2_dropped_frames / frames the L2 sources sent (null if none sent; absent "
                               "without L2 sources)"),
    _c("stopped", "", END, "a run that run.max_wall stopped past its warm-up (absent for a run that ended): field "
                           "(\"run.max_wall\"), max_wall_s, duration_s (asked for: the scenario's run.duration) and "
                           "simulated_s (reached: duration_s above, engine_spec.json's duration_ps)"),
]

#: ``summary.json``: each entry of its ``flows`` list holds columns of ``flows`` under the same
#: names, and each entry of ``ports`` columns of ``ports`` (``port`` there is the label "sw->r");
#: these values are derived (a test checks that every key is a column or listed here).
SUMMARY_DERIVED: dict[str, list[Col]] = {
    "flows": [
        _c("p_queued_per_ack", "1", AW, "rtt_samples_queued / rtt_samples: the fraction of RTT samples (one per "
                                        "ACK) above the base RTT, i.e. that saw a queue (delay-based controllers; "
                                        "null without samples)"),
    ],
    "ports": [
        _c("port", "", LAB, 'the port as "from->to" (not the id of the `ports` table)'),
    ],
    "workloads": [
        _c("delivered_bytes", "bytes", WR, "payload of the workload's flows delivered by the end of the run"),
        _c("delivered_frac", "1", WR, "delivered_bytes / bytes: the generated payload that arrived (a heavy-tailed "
                                      "size CDF over a short run leaves much of it unsent)"),
        _c("arrivals", "count", SET, "trace: the flows it lists (those due at or after the end of the run do not start)"),
        _c("rounds", "count", WR, "incast rounds started"),
        _c("rounds_completed", "count", WR, "incast rounds whose every response arrived"),
        _c("round_completion_mean_s", "s", WR, "mean completion time of those rounds"),
        _c("round_completion_max_s", "s", WR, "longest completion time of those rounds"),
        _c("rounds_requested", "count", SET, "incast: the rounds the scenario asks for (later ones start only "
                                             "after the one before completed)"),
        _c("goodput_mean_bps", "bit/s", AW, "permutation: mean goodput of its flows after warm-up, each over the time "
                                            "it ran then (from max(warm-up, start) to its completion or the end)"),
        _c("goodput_min_bps", "bit/s", AW, "permutation: the slowest flow's goodput (a flow sharing a fabric "
                                            "link with others its hash put there)"),
        _c("goodput_max_bps", "bit/s", AW, "permutation: the fastest flow's goodput"),
        _c("goodput_jain", "1", AW, "permutation: Jain's index of the flows' goodputs (1: all equal)"),
    ],
    # A leaf-spine's or fat-tree's ports by tier and direction (Result.tier_stats(), same columns).
    "tiers": [
        _c("tier", "", LAB, 'tier and direction, in path order: "host up" (host to switch), ..., "host down"; '
                            "up is towards the spines or cores"),
        _c("ports", "ports", SET, "ports of the tier in that direction"),
        _c("rate_bps", "bit/s", SET, "their rate (NaN / null if they differ)"),
        _c("util_mean", "1", AW, "mean of their utilization"),
        _c("util_max", "1", AW, "utilization of the busiest"),
        _c("q_mean_pkt", "packets", AW, "mean of their time-averaged queues"),
        _c("q_max_pkt", "packets", AW, "longest queue of any"),
        _c("tx_bytes", "bytes", AW, "bytes they transmitted"),
        _c("drops", "packets", AW, "packets they dropped"),
        _c("marks", "packets", AW, "packets they CE-marked"),
    ],
}

#: Columns dcsim adds for reading (not from the engine): table -> {column: (id column, kind)}.
LABEL_COLUMNS = {t: [c.name for c in cols if c.window == LAB] for t, cols in SCHEMA.items()}


def markdown() -> str:
    """The schema as the README's tables (one per result table)."""
    out = []
    for table, cols in SCHEMA.items():
        out.append(f"**`{table}`**: {TABLE_DOCS[table]}\n")
        out.append("| column | unit | window | meaning |")
        out.append("|---|---|---|---|")
        for c in cols:
            out.append(f"| `{c.name}` | {c.unit or '—'} | {c.window} | {c.meaning.replace('|', '/')} |")
        out.append("")
    out.append("**`summary.json`**: `ports` lists the monitored ports and `flows` the [[flows]], with columns of "
               "those tables under the same names, `workloads` columns of `workloads`, plus the keys below; on a "
               "leaf-spine or fat-tree, `tiers` lists every port grouped by tier and direction (`Result.tier_stats()`: "
               "the same columns); the keys at its top level come first:\n")
    out.append("| key | unit | window | meaning |")
    out.append("|---|---|---|---|")
    for c in SUMMARY_TOP:
        out.append(f"| `{c.name}` | {c.unit or '—'} | {c.window} | {c.meaning.replace('|', '/')} |")
    for table, cols in SUMMARY_DERIVED.items():
        for c in cols:
            out.append(f"| `{table}[].{c.name}` | {c.unit or '—'} | {c.window} | {c.meaning.replace('|', '/')} |")
    return "\n".join(out).rstrip() + "\n"


def docstring() -> str:
    """The schema as plain text, for help(Result)."""
    out = []
    for table, cols in SCHEMA.items():
        out.append(f"{table}: {TABLE_DOCS[table]}")
        for c in cols:
            unit = f" [{c.unit}]" if c.unit else ""
            out.append(f"    {c.name}{unit} ({c.window}): {c.meaning}")
    out.append("summary.json (Result.summary()): flows and ports entries hold columns of those tables, plus")
    for c in SUMMARY_TOP:
        unit = f" [{c.unit}]" if c.unit else ""
        out.append(f"    {c.name}{unit} ({c.window}): {c.meaning}")
    for table, cols in SUMMARY_DERIVED.items():
        for c in cols:
            unit = f" [{c.unit}]" if c.unit else ""
            out.append(f"    {table}[].{c.name}{unit} ({c.window}): {c.meaning}")
    return "\n".join(out)
