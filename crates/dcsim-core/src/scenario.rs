//! The scenario spec: what Python (or any JSON producer) hands the engine.
//!
//! All quantities are in the engine's units, named in the field: `_ps` integer picoseconds,
//! `_bps` bit/s, `_bytes` / `_pkt`. [`Spec::from_json`] parses and [`Spec::validate`] checks every
//! field before anything runs; each error names the field and the allowed range.

use serde::{Deserialize, Serialize};

use crate::error::{invalid, Error, Result};

fn default_packet_bytes() -> u32 {
    1500
}
fn default_header_bytes() -> u32 {
    40
}
fn default_min_cwnd() -> f64 {
    2.0
}
fn default_init_cwnd() -> f64 {
    10.0
}
fn default_min_rto_ps() -> u64 {
    10_000_000_000 // 10 ms, the DCTCP incast experiments' minimum RTO
}
fn default_queue_interval_ps() -> u64 {
    10_000_000 // 10 us
}
fn default_throughput_interval_ps() -> u64 {
    1_000_000_000 // 1 ms
}
fn default_cwnd_interval_ps() -> u64 {
    100_000_000 // 100 us
}
fn default_dctcp_g() -> f64 {
    1.0 / 16.0
}
fn default_alpha_init() -> f64 {
    1.0
}
fn default_true() -> bool {
    true
}
fn default_delack_segments() -> u32 {
    2
}
fn default_delack_timeout_ps() -> u64 {
    1_000_000_000 // 1 ms
}

/// The engine's defaults, for front ends: the Python scenario model reads them from here so that
/// each default lives in one place.
pub fn defaults() -> serde_json::Value {
    serde_json::json!({
        "packet_bytes": default_packet_bytes(),
        "header_bytes": default_header_bytes(),
        "min_cwnd_pkt": default_min_cwnd(),
        "init_cwnd_pkt": default_init_cwnd(),
        "min_rto_ps": default_min_rto_ps(),
        "dctcp_g": default_dctcp_g(),
        "dctcp_alpha_init": default_alpha_init(),
        "delack_segments": default_delack_segments(),
        "delack_timeout_ps": default_delack_timeout_ps(),
        "queue_interval_ps": default_queue_interval_ps(),
        "throughput_interval_ps": default_throughput_interval_ps(),
        "cwnd_interval_ps": default_cwnd_interval_ps(),
        "max_rows": default_max_rows(),
        "host_backlog_pkt": default_host_backlog_pkt(),
    })
}

/// A whole simulation: topology, flows, metrics, run length and seed.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Scenario seed; every component derives its own RNG stream from it.
    pub seed: u64,
    /// Simulated time to run, ps.
    pub duration_ps: u64,
    /// Statistics (goodput, utilization, queue summaries) ignore [0, warmup), ps.
    #[serde(default)]
    pub warmup_ps: u64,
    /// Size of a full data packet on the wire, bytes (payload + header).
    #[serde(default = "default_packet_bytes")]
    pub packet_bytes: u32,
    /// Header bytes per packet; a pure ACK is this size on the wire.
    #[serde(default = "default_header_bytes")]
    pub header_bytes: u32,
    pub topology: TopologySpec,
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub metrics: MetricsSpec,
    /// Host backpressure (like Linux TCP Small Queues): a flow hands new data to its host NIC only
    /// while fewer than this many packets wait there, so hosts never hold a standing queue.
    #[serde(default = "default_host_backlog_pkt")]
    pub host_backlog_pkt: u64,
}

/// Default host backpressure limit, packets waiting in a host NIC.
pub const DEFAULT_HOST_BACKLOG_PKT: u64 = 2;

fn default_host_backlog_pkt() -> u64 {
    DEFAULT_HOST_BACKLOG_PKT
}

/// Buffer capacity or threshold in packets or in bytes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Amount {
    Packets(u64),
    Bytes(u64),
}

/// An egress queue: capacity and discipline.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    pub capacity: Amount,
    #[serde(default)]
    pub aqm: AqmSpec,
}

impl QueueSpec {
    /// A queue that never drops in practice (host NICs): 1 GB drop-tail.
    pub fn unbounded() -> QueueSpec {
        QueueSpec { capacity: Amount::Bytes(1_000_000_000), aqm: AqmSpec::DropTail }
    }
}

/// Queue discipline (see `aqm/`).
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmSpec {
    #[default]
    DropTail,
    /// DCTCP threshold marking: CE on enqueue when the instantaneous queue is at least K.
    Threshold { k: Amount },
    /// RED (Floyd & Jacobson 1993, ns-2 `red.cc` semantics), thresholds in packets.
    Red {
        min_th_pkt: f64,
        max_th_pkt: f64,
        max_p: f64,
        /// EWMA weight of the average queue.
        w_q: f64,
        #[serde(default)]
        gentle: bool,
        /// Mark ECN-capable packets instead of dropping them.
        #[serde(default = "default_true")]
        ecn: bool,
        /// ns-2 `wait_`: space drops by count (p_a = 0 while count*p_b < 1). false = classic RED.
        #[serde(default = "default_true")]
        wait: bool,
    },
}

/// Network topology.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologySpec {
    /// The papers' many-to-one dumbbell: senders `s0..s{N-1}`, each on its own access link to
    /// switch `sw`, and one bottleneck link `sw -> r` to the receiver `r`.
    Dumbbell {
        senders: u32,
        bottleneck_bps: u64,
        access_bps: u64,
        /// Base round-trip propagation delay per sender, ps: one value for all, or one each.
        rtt_ps: Vec<u64>,
        /// Egress queue of the switch towards the receiver (the bottleneck).
        bottleneck_queue: QueueSpec,
        /// Egress queues of the switch towards the senders (carrying ACKs); default: same as bottleneck.
        #[serde(default)]
        reverse_queue: Option<QueueSpec>,
    },
    /// Any graph of hosts and switches; shortest-path (hop count) routing.
    Graph { nodes: Vec<NodeSpec>, links: Vec<LinkSpec> },
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

/// A full-duplex link: one egress port (and queue) at each end.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub rate_bps: u64,
    pub delay_ps: u64,
    /// Queue of both egress ports (a->b and b->a); hosts default to an unbounded NIC queue.
    #[serde(default)]
    pub queue: Option<QueueSpec>,
}

/// Window congestion controller.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ProtocolSpec {
    /// TCP NewReno (RFC 5681/6582); `ecn` makes it ECN-capable (RFC 3168 halving on ECE).
    Newreno {
        #[serde(default)]
        ecn: bool,
    },
    /// DCTCP (Alizadeh et al. 2010, RFC 8257): alpha EWMA with gain g, cut cwnd*(1-alpha/2).
    Dctcp {
        #[serde(default = "default_dctcp_g")]
        g: f64,
        #[serde(default = "default_alpha_init")]
        alpha_init: f64,
    },
}

impl ProtocolSpec {
    pub fn name(&self) -> &'static str {
        match self {
            ProtocolSpec::Newreno { .. } => "newreno",
            ProtocolSpec::Dctcp { .. } => "dctcp",
        }
    }
}

/// Receiver delayed-ACK settings (DCTCP's CE-state machine, RFC 8257 §3.2).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayedAckSpec {
    #[serde(default = "default_delack_segments")]
    pub segments: u32,
    #[serde(default = "default_delack_timeout_ps")]
    pub timeout_ps: u64,
}

/// One flow (a TCP connection) from `src` to `dst`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub src: String,
    pub dst: String,
    pub protocol: ProtocolSpec,
    #[serde(default)]
    pub start_ps: u64,
    /// Payload bytes to send; None = long-lived.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// Floor of cwnd after ECN / loss reductions, packets (ns-2 DCTCP floor: 2).
    #[serde(default = "default_min_cwnd")]
    pub min_cwnd_pkt: f64,
    #[serde(default = "default_init_cwnd")]
    pub init_cwnd_pkt: f64,
    #[serde(default = "default_min_rto_ps")]
    pub min_rto_ps: u64,
    /// None = every packet is ACKed at once (the papers' ns-2 setting).
    #[serde(default)]
    pub delayed_ack: Option<DelayedAckSpec>,
}

impl FlowSpec {
    /// A long-lived flow from `src` to `dst` starting at time 0, with the engine's defaults.
    pub fn long_lived(src: impl Into<String>, dst: impl Into<String>, protocol: ProtocolSpec) -> Self {
        FlowSpec {
            src: src.into(),
            dst: dst.into(),
            protocol,
            start_ps: 0,
            size_bytes: None,
            min_cwnd_pkt: default_min_cwnd(),
            init_cwnd_pkt: default_init_cwnd(),
            min_rto_ps: default_min_rto_ps(),
            delayed_ack: None,
        }
    }
}

/// A port named by its two ends: the egress queue of `from` towards `to`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PortRef {
    pub from: String,
    pub to: String,
}

/// What to record. Memory is bounded: every series is sampled at a fixed interval.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsSpec {
    #[serde(default = "default_queue_interval_ps")]
    pub queue_interval_ps: u64,
    #[serde(default = "default_throughput_interval_ps")]
    pub throughput_interval_ps: u64,
    #[serde(default = "default_cwnd_interval_ps")]
    pub cwnd_interval_ps: u64,
    /// Ports whose queue is sampled; None = the dumbbell bottleneck, or every switch port of a graph.
    #[serde(default)]
    pub monitor: Option<Vec<PortRef>>,
    /// Upper bound on recorded rows over all series, to keep memory bounded.
    #[serde(default = "default_max_rows")]
    pub max_rows: u64,
}

fn default_max_rows() -> u64 {
    50_000_000
}

impl Default for MetricsSpec {
    fn default() -> Self {
        MetricsSpec {
            queue_interval_ps: default_queue_interval_ps(),
            throughput_interval_ps: default_throughput_interval_ps(),
            cwnd_interval_ps: default_cwnd_interval_ps(),
            monitor: None,
            max_rows: default_max_rows(),
        }
    }
}

fn check_amount(field: &str, a: Amount) -> Result<()> {
    match a {
        Amount::Packets(0) | Amount::Bytes(0) => Err(invalid(field, "must be positive (> 0 packets or bytes)")),
        _ => Ok(()),
    }
}

fn check_unit_interval(field: &str, x: f64, lo_open: bool) -> Result<()> {
    let ok = x.is_finite() && x <= 1.0 && if lo_open { x > 0.0 } else { x >= 0.0 };
    if ok {
        Ok(())
    } else {
        let range = if lo_open { "(0, 1]" } else { "[0, 1]" };
        Err(invalid(field, format!("{x} is out of range; allowed {range}")))
    }
}

impl QueueSpec {
    fn validate(&self, field: &str, packet_bytes: u32) -> Result<()> {
        check_amount(&format!("{field}.capacity"), self.capacity)?;
        let cap_bytes = match self.capacity {
            Amount::Packets(n) => n * packet_bytes as u64,
            Amount::Bytes(b) => b,
        };
        match &self.aqm {
            AqmSpec::DropTail => {}
            AqmSpec::Threshold { k } => {
                check_amount(&format!("{field}.aqm.K"), *k)?;
                let k_bytes = match *k {
                    Amount::Packets(n) => n * packet_bytes as u64,
                    Amount::Bytes(b) => b,
                };
                if k_bytes > cap_bytes {
                    return Err(invalid(
                        format!("{field}.aqm.K"),
                        format!(
                            "marking threshold {k:?} is larger than the buffer {:?}; allowed 0 < K <= buffer",
                            self.capacity
                        ),
                    ));
                }
            }
            AqmSpec::Red { min_th_pkt, max_th_pkt, max_p, w_q, .. } => {
                let f = |n: &str| format!("{field}.aqm.{n}");
                if !(min_th_pkt.is_finite() && *min_th_pkt >= 0.0) {
                    return Err(invalid(f("min_th"), format!("{min_th_pkt} must be >= 0 packets")));
                }
                if !(max_th_pkt.is_finite() && max_th_pkt > min_th_pkt) {
                    return Err(invalid(
                        f("max_th"),
                        format!("{max_th_pkt} must be larger than min_th = {min_th_pkt} packets"),
                    ));
                }
                if (*max_th_pkt * packet_bytes as f64) > cap_bytes as f64 {
                    return Err(invalid(
                        f("max_th"),
                        format!("{max_th_pkt} packets exceeds the buffer {:?}", self.capacity),
                    ));
                }
                check_unit_interval(&f("max_p"), *max_p, true)?;
                check_unit_interval(&f("w_q"), *w_q, true)?;
            }
        }
        Ok(())
    }
}

impl Spec {
    /// Parse a JSON spec; unknown fields are errors (they are usually typos).
    pub fn from_json(s: &str) -> Result<Spec> {
        serde_json::from_str(s).map_err(|e| Error::Parse(e.to_string()))
    }

    /// Check every field; called by the world builder before anything runs.
    pub fn validate(&self) -> Result<()> {
        if self.duration_ps == 0 {
            return Err(invalid("run.duration", "must be positive"));
        }
        if self.warmup_ps >= self.duration_ps {
            return Err(invalid("run.warmup", "must be shorter than run.duration"));
        }
        if self.packet_bytes <= self.header_bytes || self.packet_bytes > 65_535 {
            return Err(invalid(
                "packet_bytes",
                format!("{} is out of range; allowed header_bytes < packet_bytes <= 65535", self.packet_bytes),
            ));
        }
        match &self.topology {
            TopologySpec::Dumbbell { senders, bottleneck_bps, access_bps, rtt_ps, bottleneck_queue, reverse_queue } => {
                if *senders == 0 {
                    return Err(invalid("network.senders", "must be at least 1"));
                }
                if *bottleneck_bps == 0 {
                    return Err(invalid("network.bottleneck", "rate must be positive (> 0 bit/s)"));
                }
                if *access_bps == 0 {
                    return Err(invalid("network.access", "rate must be positive (> 0 bit/s)"));
                }
                if !(rtt_ps.len() == 1 || rtt_ps.len() == *senders as usize) {
                    return Err(invalid(
                        "network.rtt",
                        format!("give one RTT or one per sender ({} values), got {}", senders, rtt_ps.len()),
                    ));
                }
                if rtt_ps.contains(&0) {
                    return Err(invalid("network.rtt", "must be positive"));
                }
                bottleneck_queue.validate("network.buffer", self.packet_bytes)?;
                if let Some(q) = reverse_queue {
                    q.validate("network.reverse_queue", self.packet_bytes)?;
                }
            }
            TopologySpec::Graph { nodes, links } => {
                if nodes.is_empty() {
                    return Err(invalid("network.nodes", "at least one node is needed"));
                }
                let mut names = std::collections::HashSet::new();
                for n in nodes {
                    if !names.insert(n.name.as_str()) {
                        return Err(invalid("network.nodes", format!("node name {:?} appears twice", n.name)));
                    }
                }
                for (i, l) in links.iter().enumerate() {
                    for end in [&l.a, &l.b] {
                        if !names.contains(end.as_str()) {
                            return Err(invalid(format!("network.links[{i}]"), format!("unknown node {end:?}")));
                        }
                    }
                    if l.a == l.b {
                        return Err(invalid(format!("network.links[{i}]"), "a link needs two different nodes"));
                    }
                    if l.rate_bps == 0 {
                        return Err(invalid(format!("network.links[{i}].rate"), "must be positive (> 0 bit/s)"));
                    }
                    if let Some(q) = &l.queue {
                        q.validate(&format!("network.links[{i}].queue"), self.packet_bytes)?;
                    }
                }
            }
        }
        if self.host_backlog_pkt == 0 {
            return Err(invalid("host_backlog_pkt", "must be at least 1 packet"));
        }
        if self.flows.is_empty() {
            return Err(invalid("flows", "no flows: give at least one [[flows]] entry"));
        }
        for (i, f) in self.flows.iter().enumerate() {
            let field = |n: &str| format!("flows[{i}].{n}");
            if f.src == f.dst {
                return Err(invalid(field("dst"), "a flow needs two different hosts"));
            }
            if !(f.min_cwnd_pkt.is_finite() && f.min_cwnd_pkt >= 1.0) {
                return Err(invalid(
                    field("min_cwnd"),
                    format!("{} is out of range; allowed >= 1 packet", f.min_cwnd_pkt),
                ));
            }
            if !(f.init_cwnd_pkt.is_finite() && f.init_cwnd_pkt >= 1.0) {
                return Err(invalid(
                    field("init_cwnd"),
                    format!("{} is out of range; allowed >= 1 packet", f.init_cwnd_pkt),
                ));
            }
            if f.min_rto_ps == 0 {
                return Err(invalid(field("min_rto"), "must be positive"));
            }
            if f.size_bytes == Some(0) {
                return Err(invalid(field("size"), "must be positive, or omitted for a long-lived flow"));
            }
            if let ProtocolSpec::Dctcp { g, alpha_init } = &f.protocol {
                check_unit_interval(&field("g"), *g, true)?;
                check_unit_interval(&field("alpha_init"), *alpha_init, false)?;
            }
            if let Some(d) = &f.delayed_ack {
                if d.segments == 0 {
                    return Err(invalid(field("delayed_ack.segments"), "must be at least 1"));
                }
                if d.timeout_ps == 0 {
                    return Err(invalid(field("delayed_ack.timeout"), "must be positive"));
                }
            }
        }
        let m = &self.metrics;
        for (name, v) in [
            ("metrics.queue_interval", m.queue_interval_ps),
            ("metrics.throughput_interval", m.throughput_interval_ps),
            ("metrics.cwnd_interval", m.cwnd_interval_ps),
        ] {
            if v == 0 {
                return Err(invalid(name, "must be positive"));
            }
        }
        Ok(())
    }
}
