//! The scenario spec: what Python (or any JSON producer) hands the engine.
//!
//! All quantities are in the engine's units, named in the field: `_ps` integer picoseconds,
//! `_bps` bit/s, `_bytes` / `_pkt`. [`Spec::from_json`] parses and [`Spec::validate`] checks every
//! field before anything runs; each error names the field and the allowed range.

use serde::{Deserialize, Serialize};

pub use crate::cc::ProtocolSpec;
use crate::cc::{Cc, Controller, EcnResponse};
use crate::error::{invalid, Error, Result};
use crate::units::{MAX_RATE_BPS, MAX_TIME_PS, MIN_RATE_BPS};
use crate::workload::{validate_classes, WorkloadSpec};

fn default_packet_bytes() -> u32 {
    1500
}
fn default_header_bytes() -> u32 {
    40
}
fn default_init_cwnd() -> f64 {
    10.0
}
fn default_min_rto_ps() -> u64 {
    10_000_000_000 // 10 ms, the DCTCP incast experiments' minimum RTO
}
/// A sender's retransmission timeout before its first RTT sample is max(this, min_rto): min_rto,
/// as the data-center ns-2 scripts set it (`rtxcur_init_` = `minrto_`), unless that is below 1 ms.
/// A path whose first ACK takes longer times out once for nothing (the scenario layer warns).
pub const INITIAL_RTO_FLOOR_PS: u64 = 1_000_000_000;
/// The retransmission timeout's cap, 60 s (RFC 6298 (2.5): a maximum of at least 60 s), so also
/// the largest `min_rto`: a larger one was used for the first timeout only, then capped (the
/// backed-off timer fell from min_rto to 60 s, and every RTT sample gave 60 s).
pub const MAX_RTO_PS: u64 = 60 * 1_000_000_000_000;
/// The Linux profile's minimum RTO: 200 ms (Linux `TCP_RTO_MIN`).
fn default_linux_min_rto_ps() -> u64 {
    200_000_000_000
}
/// The Linux profile's delayed ACK: every 2 full segments, else after 40 ms (Linux
/// `TCP_DELACK_MIN`); applied by front ends (the engine's `delayed_ack` is explicit).
fn default_linux_delack_timeout_ps() -> u64 {
    40_000_000_000
}
fn default_queue_interval_ps() -> u64 {
    10_000_000 // 10 us
}
fn default_throughput_interval_ps() -> u64 {
    1_000_000_000 // 1 ms
}
fn default_cwnd_interval_ps() -> u64 {
    10_000_000 // 10 us: a tenth of the papers' 100 us RTT, so a zoom on a few periods is not a staircase
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
    let mut d = serde_json::json!({
        "packet_bytes": default_packet_bytes(),
        "header_bytes": default_header_bytes(),
        "init_cwnd_pkt": default_init_cwnd(),
        "min_rto_ps": default_min_rto_ps(),
        "initial_rto_floor_ps": INITIAL_RTO_FLOOR_PS,
        "protocols": crate::cc::protocols_table(),
        "queues": crate::aqm::queues_table(),
        "delack_segments": default_delack_segments(),
        "delack_timeout_ps": default_delack_timeout_ps(),
        "profiles": {
            "ns2": TcpOptions::profile_defaults(Profile::Ns2),
            "linux": TcpOptions::profile_defaults(Profile::Linux),
        },
        "queue_interval_ps": default_queue_interval_ps(),
        "throughput_interval_ps": default_throughput_interval_ps(),
        "cwnd_interval_ps": default_cwnd_interval_ps(),
        "max_memory_bytes": default_max_memory_bytes(),
        "listed_flow_bytes": crate::sim::listed_flow_bytes(),
        "host_backlog_pkt": default_host_backlog_pkt(),
        "max_host_jitter_ps": MAX_HOST_JITTER_PS,
        "l2_dsm_q0_bytes": crate::l2::dsm::Params::default().q0_bytes,
        "l2_qcn_qeq_bytes": crate::l2::qcn::Params::default().qeq_bytes,
        "parking_lot_buffer_bytes": DEFAULT_PARKING_LOT_BUFFER_BYTES,
        "l2_schemes": crate::l2::schemes_table(),
        "limits": {
            "max_time_ps": MAX_TIME_PS,
            "max_rto_ps": MAX_RTO_PS,
            "min_rate_bps": MIN_RATE_BPS,
            "max_rate_bps": MAX_RATE_BPS,
            "max_nodes": MAX_NODES,
            "max_fat_tree_k": max_fat_tree_k(),
            "max_links": MAX_LINKS,
            "max_flows": MAX_FLOWS,
            "max_buffer_pkt": MAX_BUFFER_PKT,
            "max_buffer_bytes": MAX_BUFFER_BYTES,
            "max_flow_bytes": MAX_FLOW_BYTES,
            "max_window_pkt": MAX_WINDOW_PKT,
            "max_count": MAX_COUNT,
            "max_packet_bytes": MAX_PACKET_BYTES,
            "min_memory_bytes": MIN_MEMORY_BYTES,
            "max_memory_bytes": MAX_MEMORY_BYTES,
            "max_partitions": MAX_PARTITIONS,
            "max_generated_flows": MAX_GENERATED_FLOWS,
            "max_dsm_m": crate::l2::dsm::MAX_M,
        },
    });
    // Beside the macro (its recursion limit): what the memory plan counts for each flow a trace
    // lists, beside its result row.
    d["trace_arrival_bytes"] = (crate::sim::TRACE_ARRIVAL_BYTES as u64).into();
    d
}

// Documented maxima: every size a user gives is checked against these before anything is
// allocated, and the error names the field and the maximum.

/// Nodes in a network (a dumbbell has senders + 2).
pub const MAX_NODES: u64 = 200_000;
/// Links of a graph.
pub const MAX_LINKS: u64 = 1_000_000;
/// Flows given in a scenario.
pub const MAX_FLOWS: u64 = 1_000_000;
/// Buffer capacities and thresholds: 10^9 packets or 10^12 bytes.
pub const MAX_BUFFER_PKT: u64 = 1_000_000_000;
pub const MAX_BUFFER_BYTES: u64 = 1_000_000_000_000;
/// A finite flow's size: 10^15 bytes (1 PB).
pub const MAX_FLOW_BYTES: u64 = 1_000_000_000_000_000;
/// Windows (initial and floor), packets.
pub const MAX_WINDOW_PKT: f64 = 1e7;
/// Small counts (delayed-ACK segments, host backlog), at most this.
pub const MAX_COUNT: u64 = 1_000_000;
/// Largest packet on the wire, bytes.
pub const MAX_PACKET_BYTES: u32 = 65_535;
/// Range of the memory bound `metrics.max_memory`, bytes: 1 MB (below it not even a small world
/// with its default series fits) to 1 TB (beyond any machine that runs this; keeps every byte
/// count of `check_memory` far from overflow).
pub const MIN_MEMORY_BYTES: u64 = 1_000_000;
pub const MAX_MEMORY_BYTES: u64 = 1_000_000_000_000;

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
    /// Generated flows: Poisson arrivals, incast rounds (see `workload.rs`).
    #[serde(default)]
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default)]
    pub metrics: MetricsSpec,
    /// Host backpressure (like Linux TCP Small Queues): a flow hands new data to its host NIC only
    /// while fewer than this many packets wait there, so hosts never hold a standing queue.
    #[serde(default = "default_host_backlog_pkt")]
    pub host_backlog_pkt: u64,
    /// Each data packet (and L2 data frame) a host sends is released to its NIC a random time
    /// later, uniform in [0, host_jitter_ps] ps after it is handed over or after the previous
    /// release, from the NIC port's stream (0: none; `Port::release`). As ns-2's TCP `overhead_`,
    /// it breaks the phase effects of a deterministic packet system (Floyd & Jacobson 1992): flows
    /// whose packets arrive in a fixed pattern lock onto the queue's marking or drop instants. ACKs
    /// are not delayed; the NIC stays FIFO. At most [`MAX_HOST_JITTER_PS`].
    #[serde(default)]
    pub host_jitter_ps: u64,
    /// Converged-Ethernet (L2) rate sources and congestion points (see `l2/world.rs`).
    #[serde(default)]
    pub l2: Option<crate::l2::world::L2Setup>,
    /// Parts the network is split into, each simulated by its own world side by side on its own
    /// core (`sim/partition.rs`); 1: one world. Fat-trees split by pods, leaf-spines by leaves.
    #[serde(default = "default_partitions")]
    pub partitions: u32,
}

/// Most partitions a run may have.
pub const MAX_PARTITIONS: u32 = 64;

fn default_partitions() -> u32 {
    1
}

/// Largest `host_jitter_ps`: 1 s.
pub const MAX_HOST_JITTER_PS: u64 = 1_000_000_000_000;

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

/// As scenarios write it: "65pkt", "30000B".
impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Amount::Packets(n) => write!(f, "{n}pkt"),
            Amount::Bytes(b) => write!(f, "{b}B"),
        }
    }
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
        QueueSpec { capacity: Amount::Bytes(1_000_000_000), aqm: AqmSpec::drop_tail() }
    }

    /// A switch port's queue where the scenario gives none (a graph's link): 1 000 packets, drop-tail.
    pub fn default_switch() -> QueueSpec {
        QueueSpec { capacity: Amount::Packets(1000), aqm: AqmSpec::drop_tail() }
    }

    /// Its capacity in packets of `packet_bytes` (a capacity in bytes rounded up).
    pub fn packets(&self, packet_bytes: u32) -> u128 {
        match self.capacity {
            Amount::Packets(n) => n as u128,
            Amount::Bytes(b) => (b as u128).div_ceil(packet_bytes.max(1) as u128),
        }
    }
}

pub use crate::aqm::AqmSpec;

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
    /// Any graph of hosts and switches; shortest-path (hop count) routing. Of several equal-cost
    /// next hops a switch takes the first found (see `net::Network::compute_routes`), unless
    /// `ecmp_seed` is given: then it hashes each flow's 5-tuple over all of them (ECMP).
    Graph {
        nodes: Vec<NodeSpec>,
        links: Vec<LinkSpec>,
        #[serde(default)]
        ecmp_seed: Option<u64>,
    },
    /// A two-tier Clos (leaf-spine): `leaves` leaf switches `leaf0..`, `spines` spine switches
    /// `spine0..`, every leaf linked to every spine, `hosts_per_leaf` hosts on each leaf (hosts
    /// `h0..` leaf by leaf: host i hangs off leaf i / hosts_per_leaf). Every switch spreads flows
    /// over its equal-cost next hops by a 5-tuple hash (ECMP) seeded by `ecmp_seed` (default: the
    /// scenario seed).
    LeafSpine {
        leaves: u32,
        spines: u32,
        hosts_per_leaf: u32,
        /// Host <-> leaf links (the queue: leaf ports towards hosts; host NICs are unbounded).
        host: TierSpec,
        /// Leaf <-> spine links (queues of both ends).
        leaf_spine: TierSpec,
        #[serde(default)]
        ecmp_seed: Option<u64>,
    },
    /// The k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation
    /// switches, (k/2)^2 core switches, k/2 hosts per edge switch (k^3/4 hosts, 5k^2/4 switches).
    /// Edge switch `edge{e}` and aggregation switch `agg{a}` are numbered pod by pod (pod p has
    /// e, a in p k/2 .. (p+1) k/2); edge e links to every aggregation switch of its pod and to
    /// hosts `h{e k/2} .. h{e k/2 + k/2 - 1}`; core `core{c}` links to aggregation switch
    /// p k/2 + c / (k/2) of every pod p. ECMP as for the leaf-spine.
    FatTree {
        k: u32,
        /// Host <-> edge links.
        host: TierSpec,
        /// Edge <-> aggregation links.
        edge_agg: TierSpec,
        /// Aggregation <-> core links.
        agg_core: TierSpec,
        #[serde(default)]
        ecmp_seed: Option<u64>,
    },
    /// A single-rooted tree (the coexistence paper's topology): hosts `h0..` rack by rack, each
    /// rack's hosts on a top-of-rack switch `tor{i}`, the ToRs on one `root` switch (a single
    /// rack has no root). Every link has `rtt_ps / 8` of propagation each way (`rtt_ps / 4` with
    /// one rack), so hosts in different racks are `rtt_ps` apart and hosts of one rack half of it.
    Tree {
        /// Hosts per rack.
        racks: Vec<u32>,
        /// Host <-> ToR links.
        host_bps: u64,
        /// ToR <-> root links.
        core_bps: u64,
        /// Links of `bottleneck_hosts` to their ToR run at this rate instead of `host_bps`.
        #[serde(default)]
        bottleneck_bps: Option<u64>,
        #[serde(default)]
        bottleneck_hosts: Vec<String>,
        rtt_ps: u64,
        /// Egress queue of every switch port.
        queue: QueueSpec,
    },
    /// A chain of switches `C1 .. Cn` (the DSM paper's Fig. 4 parking lot; with two switches,
    /// its Fig. 3 dumbbell S_i -> R_i): `Ci` is linked to `Ci+1` at `rate_bps` with `delay_ps` of
    /// propagation each way, and every host has its own link to the switch it names.
    ParkingLot {
        switches: u32,
        rate_bps: u64,
        delay_ps: u64,
        host_rate_bps: u64,
        host_delay_ps: u64,
        hosts: Vec<HostAt>,
        /// Egress queue of every switch port; default 128 KB drop-tail (the DSM paper's setting).
        #[serde(default = "default_parking_lot_queue")]
        queue: QueueSpec,
    },
}

/// One tier of a fabric's links: the rate and one-way propagation delay of each link, and the
/// egress queue of its switch ports (a host's own NIC queue is unbounded, as everywhere).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierSpec {
    pub rate_bps: u64,
    pub delay_ps: u64,
    pub queue: QueueSpec,
}

impl TierSpec {
    fn validate(&self, field: &str, packet_bytes: u32) -> Result<()> {
        check_rate(&format!("{field}.rate"), self.rate_bps)?;
        check_time(&format!("{field}.delay"), self.delay_ps, false)?;
        self.queue.validate(field, packet_bytes)
    }
}

/// Fabric sizes (nodes, links) of a leaf-spine, u64 so that no product of u32 counts overflows.
pub fn leaf_spine_size(leaves: u32, spines: u32, hosts_per_leaf: u32) -> (u64, u64) {
    let (l, s, h) = (leaves as u64, spines as u64, hosts_per_leaf as u64);
    ((l * h).saturating_add(l + s), (l * h).saturating_add(l * s))
}

/// The routing tables' shape of a topology: see [`TopologySpec::route_shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteShape {
    pub rows: u64,
    pub groups: u64,
    pub ecmp_width: u64,
    /// The most distinct equal-cost sets: a fabric's are one a switch and direction (at most
    /// `rows`); a graph's may differ by destination group (at most one a table entry: a
    /// hypercube of 2^9 switches built 1.2 M ports of sets against 5 120 of a per-switch bound,
    /// an audit).
    pub max_sets: u64,
}

/// Fabric sizes (nodes, links) of a k-ary fat-tree: k^3/4 hosts, 5k^2/4 switches; k^3/4 links in
/// each of the three tiers.
pub fn fat_tree_size(k: u32) -> (u64, u64) {
    let k = k as u128;
    let sat = |x: u128| x.min(u64::MAX as u128) as u64;
    (sat(k * k * k / 4 + 5 * k * k / 4), sat(3 * k * k * k / 4))
}

/// Largest k of a fat-tree within [`MAX_NODES`] (even).
pub fn max_fat_tree_k() -> u32 {
    let mut k = 2;
    while fat_tree_size(k + 2).0 <= MAX_NODES {
        k += 2;
    }
    k
}

/// The DSM paper's switch buffer (Section V-A: 128 KB drop-tail), the parking lot's default.
pub const DEFAULT_PARKING_LOT_BUFFER_BYTES: u64 = 128_000;

fn default_parking_lot_queue() -> QueueSpec {
    QueueSpec { capacity: Amount::Bytes(DEFAULT_PARKING_LOT_BUFFER_BYTES), aqm: AqmSpec::drop_tail() }
}

/// A host of a parking lot and the switch (`C1 ..`) it hangs off.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostAt {
    pub name: String,
    pub at: String,
}

/// Name of switch `i` (0-based) of a parking lot: the paper's C1, C2, ...
pub fn chain_switch_name(i: u32) -> String {
    format!("C{}", i + 1)
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

/// Where a delay-based controller takes its base RTT R0 from.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum BaseRttSpec {
    /// The minimum RTT sample seen so far.
    #[default]
    Min,
    /// The exact base RTT of the flow's path (propagation plus the serialisation of a full data
    /// packet and of an ACK on every hop), computed by the world builder.
    Path,
    /// A given value, ps.
    FixedPs(u64),
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
    /// The flow starts a uniformly random time in [0, start_jitter_ps) after start_ps, drawn from
    /// the flow's RNG stream (randomized start times against phase effects), ps.
    #[serde(default)]
    pub start_jitter_ps: u64,
    /// Payload bytes to send; None = long-lived.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// Floor of cwnd after ECN / loss / delay reductions, packets; None = the protocol's default
    /// ([`ProtocolSpec::default_min_cwnd_pkt`]: 2 for NewReno and DCTCP, 1 for DX).
    #[serde(default)]
    pub min_cwnd_pkt: Option<f64>,
    #[serde(default = "default_init_cwnd")]
    pub init_cwnd_pkt: f64,
    /// Minimum retransmission timeout, ps; None = the profile's default (ns2: 10 ms, the DCTCP
    /// incast experiments' value; linux: 200 ms).
    #[serde(default)]
    pub min_rto_ps: Option<u64>,
    /// None = every packet is ACKed at once (the papers' ns-2 setting). Explicit in the engine
    /// under every profile: front ends fill in the Linux profile's {2 segments, 40 ms}.
    #[serde(default)]
    pub delayed_ack: Option<DelayedAckSpec>,
    /// Which TCP the transport imitates, and the individual options it sets (see [`TcpSpec`]).
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// Which TCP implementation a flow's transport follows. The profile only sets the defaults of the
/// options of [`TcpSpec`]; each can be flipped on its own.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// ns-2's `tcp.cc` / `tcp-newreno.cc` (what the reference papers used).
    #[default]
    Ns2,
    /// Linux (`tcp_input.c`, `tcp_dctcp.c`): CWR with PRR, SACK, delayed ACKs, 200 ms min RTO.
    Linux,
}

/// How a window-based controller reacts to ECN-Echo (for NewReno-ECN and DCTCP; the others have
/// their own rule and take only the default).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EcnReaction {
    /// ns-2: cut the window at once, at most once per window of data.
    Immediate,
    /// Linux: enter CWR and bring the window down to the new ssthresh over one RTT with
    /// Proportional Rate Reduction (RFC 6937), without growth until CWR ends.
    Prr,
}

/// The transport options of a flow: a profile and individual overrides (None: the profile's value).
#[derive(Clone, Debug, Serialize, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    #[serde(default)]
    pub profile: Profile,
    /// ECN reaction: "immediate" (ns2) or "prr" (linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_response: Option<EcnReaction>,
    /// No window growth for the whole round trip after an ECN reduction (linux: CWR state), not
    /// only on ACKs with ECN-Echo (ns2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwr_freeze: Option<bool>,
    /// Selective acknowledgments (RFC 2018) and SACK-based loss recovery (RFC 6675 with PRR);
    /// false: NewReno (RFC 6582).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// Appropriate byte counting (RFC 3465, Linux): the window grows by the segments an ACK
    /// acknowledges (slow start capped at ssthresh), not by one per ACK (ns-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abc: Option<bool>,
    /// Receiver: a change of the CE state also ACKs the packet that changed it at once (Linux
    /// `tcp_dctcp.c`), besides flushing the pending delayed ACK with the old state (RFC 8257 §3.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_quickack: Option<bool>,
    /// DCTCP's alpha and cut in Linux's fixed-point arithmetic (`tcp_dctcp.c`): alpha in 1/1024,
    /// g = 2^-k, the update when snd_una reaches the window end, ssthresh = max(cwnd -
    /// floor(cwnd alpha / 2), 2) on whole segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dctcp_fixed_point: Option<bool>,
    /// Receiver: pure ACKs carry ECT(0), so that an ECN queue marks them instead of dropping them
    /// as Not-ECT packets (Linux with a congestion control that needs ECN, DCTCP: `tcp_ecn_send`
    /// clears ECT on ACKs only for the others); ns-2 and RFC 3168 send ACKs Not-ECT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ect_acks: Option<bool>,
}

/// The options of a flow's transport with the profile's defaults filled in.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct TcpOptions {
    pub profile: Profile,
    pub ecn_response: EcnReaction,
    pub cwr_freeze: bool,
    pub sack: bool,
    pub abc: bool,
    pub ce_quickack: bool,
    pub dctcp_fixed_point: bool,
    pub ect_acks: bool,
}

impl TcpOptions {
    /// The options a profile sets (for the protocols that take each).
    pub fn profile_defaults(p: Profile) -> serde_json::Value {
        let linux = p == Profile::Linux;
        serde_json::json!({
            "ecn_response": if linux { "prr" } else { "immediate" },
            "cwr_freeze": linux,
            "sack": linux,
            "abc": linux,
            "ce_quickack": linux,
            "dctcp_fixed_point": linux,
            "ect_acks": linux,
            "min_cwnd_pkt": if linux { Some(1.0) } else { None },
            "min_rto_ps": if linux { default_linux_min_rto_ps() } else { default_min_rto_ps() },
            "delayed_ack": if linux {
                Some(serde_json::json!({"segments": 2, "timeout_ps": default_linux_delack_timeout_ps()}))
            } else {
                None
            },
        })
    }
}

impl ProtocolSpec {
    /// Are this controller's data packets ECN-capable (ECT)? ([`Controller::ect`], asked of the
    /// controller the spec builds.)
    pub fn ecn_capable(&self) -> bool {
        Cc::new(self).ect()
    }

    /// Does this controller cut its window once per window of data on ECN-Echo (so that the ECN
    /// reaction can be chosen)? An ECN-capable sender whose [`Controller::ecn_response`] is once
    /// per window.
    pub fn cuts_on_ecn(&self) -> bool {
        let cc = Cc::new(self);
        cc.ect() && cc.ecn_response() == EcnResponse::OncePerWindow
    }

    /// Does this controller keep DCTCP's alpha ([`Controller::alpha`] is a number), so that the
    /// linux profile gives it Linux's DCTCP arithmetic and ECN-capable ACKs?
    pub fn keeps_dctcp_alpha(&self) -> bool {
        !Cc::new(self).alpha().is_nan()
    }

    /// Does this controller read RTT samples against a base RTT as queueing delay
    /// ([`Controller::on_rtt_sample`] answers), so that a receiver's delayed ACK, whose hold
    /// enters every sample, looks like a queue to it?
    pub fn reads_delay(&self) -> bool {
        Cc::new(self).on_rtt_sample(crate::units::Time(1)).is_some()
    }

    /// The facts front ends ask of a protocol, as JSON: `ect`, `cuts_on_ecn`, `dctcp_alpha`,
    /// `delay_based`, and for errors `no_window_cut_why` and `not_ect_as` (the Python package reads
    /// them instead of repeating them).
    pub fn facts(&self) -> serde_json::Value {
        serde_json::json!({
            "ect": self.ecn_capable(),
            "cuts_on_ecn": self.cuts_on_ecn(),
            "dctcp_alpha": self.keeps_dctcp_alpha(),
            "delay_based": self.reads_delay(),
            "no_window_cut_why": self.no_window_cut_reason(),
            "not_ect_as": self.not_ect_as(),
        })
    }
}

impl FlowSpec {
    /// The window floor in force, packets: given, or 1 segment under the Linux profile (Linux's
    /// general minimum; its ssthresh functions keep 2), else the protocol's floor.
    pub fn min_cwnd(&self) -> f64 {
        self.min_cwnd_pkt.unwrap_or_else(|| match self.tcp.profile {
            Profile::Linux => 1.0,
            Profile::Ns2 => self.protocol.default_min_cwnd_pkt(),
        })
    }

    /// The minimum RTO in force, ps.
    pub fn min_rto(&self) -> u64 {
        self.min_rto_ps.unwrap_or(match self.tcp.profile {
            Profile::Linux => default_linux_min_rto_ps(),
            Profile::Ns2 => default_min_rto_ps(),
        })
    }

    /// The transport options with the profile's defaults filled in. The ECN reaction of a
    /// controller that does not cut once per window stays "immediate" (its own rule applies).
    pub fn tcp_options(&self) -> TcpOptions {
        let t = &self.tcp;
        let linux = t.profile == Profile::Linux;
        let dctcp = self.protocol.keeps_dctcp_alpha();
        let prr_default = if linux && self.protocol.cuts_on_ecn() { EcnReaction::Prr } else { EcnReaction::Immediate };
        let ecn_response = t.ecn_response.unwrap_or(prr_default);
        TcpOptions {
            profile: t.profile,
            ecn_response,
            cwr_freeze: t.cwr_freeze.unwrap_or(linux || ecn_response == EcnReaction::Prr),
            sack: t.sack.unwrap_or(linux),
            abc: t.abc.unwrap_or(linux),
            ce_quickack: t.ce_quickack.unwrap_or(linux),
            dctcp_fixed_point: t.dctcp_fixed_point.unwrap_or(linux && dctcp),
            ect_acks: t.ect_acks.unwrap_or(linux && dctcp),
        }
    }

    /// A long-lived flow from `src` to `dst` starting at time 0, with the engine's defaults.
    pub fn long_lived(src: impl Into<String>, dst: impl Into<String>, protocol: ProtocolSpec) -> Self {
        FlowSpec {
            src: src.into(),
            dst: dst.into(),
            protocol,
            start_ps: 0,
            start_jitter_ps: 0,
            size_bytes: None,
            min_cwnd_pkt: None,
            init_cwnd_pkt: default_init_cwnd(),
            min_rto_ps: None,
            delayed_ack: None,
            tcp: TcpSpec::default(),
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
    /// With `monitor` None: sample only the first n of the default ports (in
    /// `net::topology::build`'s order). [`crate::sim::fit_sampling`] sets it when the default
    /// ports' queue series would not fit `max_memory_bytes` even at their coarsest sampling.
    #[serde(default)]
    pub monitor_first: Option<u64>,
    /// Flows (indices) whose goodput and window are traced over time; None = every listed flow.
    /// Indices past the listed flows name generated flows, in the order they start (their ids in
    /// the flows table). The per-flow summary rows cover every flow either way.
    #[serde(default)]
    pub trace_flows: Option<Vec<u64>>,
    /// Memory the run may use, bytes: the world (ports, flows, routes) plus the sampled series at
    /// their peak cost (the engine's columns and the front end's transient copies, see
    /// `sim::check_memory`). Checked before the run.
    #[serde(default = "default_max_memory_bytes")]
    pub max_memory_bytes: u64,
}

/// Default memory bound of a run: 1 GB, comfortable on a laptop.
fn default_max_memory_bytes() -> u64 {
    1_000_000_000
}

impl Default for MetricsSpec {
    fn default() -> Self {
        MetricsSpec {
            queue_interval_ps: default_queue_interval_ps(),
            throughput_interval_ps: default_throughput_interval_ps(),
            cwnd_interval_ps: default_cwnd_interval_ps(),
            monitor: None,
            monitor_first: None,
            trace_flows: None,
            max_memory_bytes: default_max_memory_bytes(),
        }
    }
}

pub(crate) fn check_amount(field: &str, a: Amount) -> Result<()> {
    match a {
        Amount::Packets(0) | Amount::Bytes(0) => Err(invalid(field, "must be positive (> 0 packets or bytes)")),
        Amount::Packets(n) if n > MAX_BUFFER_PKT => {
            Err(invalid(field, format!("{n} packets is out of range; allowed 1 ..= {MAX_BUFFER_PKT} packets")))
        }
        Amount::Bytes(b) if b > MAX_BUFFER_BYTES => {
            Err(invalid(field, format!("{b} bytes is out of range; allowed 1 ..= {MAX_BUFFER_BYTES} bytes")))
        }
        _ => Ok(()),
    }
}

pub(crate) fn amount_bytes(a: Amount, packet_bytes: u32) -> u64 {
    match a {
        Amount::Packets(n) => n.saturating_mul(packet_bytes as u64),
        Amount::Bytes(b) => b,
    }
}

pub(crate) fn check_unit_interval(field: &str, x: f64, lo_open: bool) -> Result<()> {
    let ok = x.is_finite() && x <= 1.0 && if lo_open { x > 0.0 } else { x >= 0.0 };
    if ok {
        Ok(())
    } else {
        let range = if lo_open { "(0, 1]" } else { "[0, 1]" };
        Err(invalid(field, format!("{x} is out of range; allowed {range}")))
    }
}

/// An error naming `field[j]` for the first host listed a second time (O(n): a hash set, for
/// lists of thousands of hosts).
fn no_host_twice(field: &str, hosts: &[String]) -> Result<()> {
    let mut seen = std::collections::HashSet::with_capacity(hosts.len());
    for (j, h) in hosts.iter().enumerate() {
        if !seen.insert(h.as_str()) {
            return Err(invalid(format!("{field}[{j}]"), format!("{h:?} appears twice")));
        }
    }
    Ok(())
}

/// A time field: at most [`MAX_TIME_PS`] (10^6 s); `positive` also excludes 0.
pub(crate) fn check_time(field: &str, ps: u64, positive: bool) -> Result<()> {
    if positive && ps == 0 {
        return Err(invalid(field, "must be positive (> 0 s)"));
    }
    if ps > MAX_TIME_PS {
        return Err(invalid(field, format!("{ps} ps is out of range; allowed at most {MAX_TIME_PS} ps (10^6 s)")));
    }
    Ok(())
}

fn check_rate(field: &str, bps: u64) -> Result<()> {
    if (MIN_RATE_BPS..=MAX_RATE_BPS).contains(&bps) {
        Ok(())
    } else {
        Err(invalid(
            field,
            format!("{bps} bit/s is out of range; allowed {MIN_RATE_BPS} ..= {MAX_RATE_BPS} bit/s (1 Kbps .. 10 Tbps)"),
        ))
    }
}

fn check_count(field: &str, n: u64, max: u64) -> Result<()> {
    if (1..=max).contains(&n) {
        Ok(())
    } else {
        Err(invalid(field, format!("{n} is out of range; allowed 1 ..= {max}")))
    }
}

fn check_window(field: &str, w: f64) -> Result<()> {
    if w.is_finite() && (1.0..=MAX_WINDOW_PKT).contains(&w) {
        Ok(())
    } else {
        Err(invalid(field, format!("{w} is out of range; allowed 1 ..= {MAX_WINDOW_PKT} packets")))
    }
}

/// The options of one flow (a listed flow or a workload class), `field(name)` naming each.
pub fn validate_flow_options(f: &FlowSpec, field: &dyn Fn(&str) -> String) -> Result<()> {
    check_window(&field("min_cwnd"), f.min_cwnd())?;
    check_window(&field("init_cwnd"), f.init_cwnd_pkt)?;
    check_time(&field("min_rto"), f.min_rto(), true)?;
    if f.min_rto() > MAX_RTO_PS {
        return Err(invalid(
            field("min_rto"),
            format!("{} ps is out of range; allowed 1 ..= {MAX_RTO_PS} ps (at most 60 s, the RTO's cap)", f.min_rto()),
        ));
    }
    check_time(&field("start"), f.start_ps, false)?;
    check_time(&field("start_jitter"), f.start_jitter_ps, false)?;
    if let Some(sz) = f.size_bytes {
        if !(1..=MAX_FLOW_BYTES).contains(&sz) {
            return Err(invalid(
                field("size"),
                format!("{sz} bytes is out of range; allowed 1 ..= {MAX_FLOW_BYTES} bytes, or omit it for a long-lived flow"),
            ));
        }
    }
    f.protocol.check(field)?;
    if let Some(d) = &f.delayed_ack {
        check_count(&field("delayed_ack.segments"), d.segments as u64, MAX_COUNT)?;
        check_time(&field("delayed_ack.timeout"), d.timeout_ps, true)?;
    }
    validate_tcp_options(f, field)
}

/// Combinations of transport options the transport cannot honour; each error names both fields.
fn validate_tcp_options(f: &FlowSpec, field: &dyn Fn(&str) -> String) -> Result<()> {
    let o = f.tcp_options();
    let name = f.protocol.name();
    if o.ecn_response == EcnReaction::Prr && !f.protocol.cuts_on_ecn() {
        let why = f.protocol.no_window_cut_reason();
        return Err(invalid(
            field("ecn_response"),
            format!(
                "\"prr\" cannot be combined with {} = {name}: {why}; allowed here: \"immediate\"",
                field("protocol")
            ),
        ));
    }
    if o.ecn_response == EcnReaction::Prr && !o.cwr_freeze {
        return Err(invalid(
            field("cwr_freeze"),
            format!(
                "false cannot be combined with {} = \"prr\": PRR sets the window on every ACK of the CWR round trip, \
                 so it never grows there (Linux tcp_cong_control); use ecn_response = \"immediate\" for growth on unmarked ACKs",
                field("ecn_response")
            ),
        ));
    }
    if o.ect_acks && !f.protocol.ecn_capable() {
        let what = f.protocol.not_ect_as();
        return Err(invalid(
            field("ect_acks"),
            format!(
                "true cannot be combined with {} = {name}{what}: its data is not ECN-capable, so neither are its \
                 ACKs (Linux sets ECT only on a connection that negotiated ECN); use ect_acks = false",
                field("protocol")
            ),
        ));
    }
    if o.dctcp_fixed_point {
        match f.protocol.dctcp_g() {
            Some(g) => {
                if dctcp_shift_g(g).is_none() {
                    return Err(invalid(
                        field("g"),
                        format!(
                            "{g} cannot be combined with {} = true (the linux profile's default): Linux keeps g as a shift, \
                             g = 2^-k with k = 0 ..= 10 (e.g. 0.0625 = 2^-4); set dctcp_fixed_point = false for another g",
                            field("dctcp_fixed_point")
                        ),
                    ));
                }
            }
            None => {
                return Err(invalid(
                    field("dctcp_fixed_point"),
                    format!("true cannot be combined with {} = {name}: only DCTCP has an alpha", field("protocol")),
                ))
            }
        }
    }
    Ok(())
}

/// k with g = 2^-k, k in 0 ..= 10 (Linux's `dctcp_shift_g`), if g is such a power.
pub fn dctcp_shift_g(g: f64) -> Option<u32> {
    (0..=10u32).find(|&k| g == 1.0 / (1u64 << k) as f64)
}

impl QueueSpec {
    fn validate(&self, field: &str, packet_bytes: u32) -> Result<()> {
        check_amount(&format!("{field}.capacity"), self.capacity)?;
        self.aqm.check(&|n| format!("{field}.aqm.{n}"), self.capacity, packet_bytes)
    }
}

impl TopologySpec {
    /// The topology's kind as written in a scenario (`topology = "..."`).
    pub fn kind(&self) -> &'static str {
        match self {
            TopologySpec::Dumbbell { .. } => "dumbbell",
            TopologySpec::Graph { .. } => "graph",
            TopologySpec::LeafSpine { .. } => "leaf_spine",
            TopologySpec::FatTree { .. } => "fat_tree",
            TopologySpec::Tree { .. } => "tree",
            TopologySpec::ParkingLot { .. } => "parking_lot",
        }
    }

    /// Nodes and egress ports the topology builds (for the size checks before building).
    pub fn size(&self) -> (u64, u64) {
        match self {
            TopologySpec::Dumbbell { senders, .. } => (*senders as u64 + 2, 2 * (*senders as u64 + 1)),
            TopologySpec::Graph { nodes, links, .. } => (nodes.len() as u64, 2 * links.len() as u64),
            TopologySpec::LeafSpine { leaves, spines, hosts_per_leaf, .. } => {
                let (n, l) = leaf_spine_size(*leaves, *spines, *hosts_per_leaf);
                (n, 2 * l)
            }
            TopologySpec::FatTree { k, .. } => {
                let (n, l) = fat_tree_size(*k);
                (n, 2 * l)
            }
            TopologySpec::Tree { racks, .. } => {
                let hosts: u64 = racks.iter().map(|&h| h as u64).sum();
                let r = racks.len() as u64;
                let core = if r > 1 { r } else { 0 };
                (hosts + r + (r > 1) as u64, 2 * (hosts + core))
            }
            TopologySpec::ParkingLot { switches, hosts, .. } => {
                let n = *switches as u64;
                (n + hosts.len() as u64, 2 * (n.saturating_sub(1) + hosts.len() as u64))
            }
        }
    }

    /// The routing tables' shape (see `Network::compute_routes`), for the memory plan before
    /// building: `rows` (switches and multi-homed hosts), destination `groups` (hosts with the
    /// same set of neighbours), the most ports an equal-cost set can hold (0 without ECMP) and the
    /// most distinct sets.
    pub fn route_shape(&self) -> RouteShape {
        let shape = |rows: u64, groups: u64, ecmp_width: u64| {
            let max_sets = if ecmp_width == 0 {
                0
            } else if matches!(self, TopologySpec::Graph { .. }) {
                rows.saturating_mul(groups)
            } else {
                rows
            };
            RouteShape { rows, groups, ecmp_width, max_sets }
        };
        match self {
            // One switch, every host behind it.
            TopologySpec::Dumbbell { .. } => shape(1, 1, 0),
            TopologySpec::Tree { racks, .. } => {
                let r = racks.len() as u64;
                shape(r + (r > 1) as u64, r, 0)
            }
            TopologySpec::ParkingLot { switches, hosts, .. } => {
                shape(*switches as u64, (*switches as u64).min(hosts.len() as u64), 0)
            }
            TopologySpec::LeafSpine { leaves, spines, .. } => {
                shape(*leaves as u64 + *spines as u64, *leaves as u64, *spines as u64)
            }
            TopologySpec::FatTree { k, .. } => {
                let k = *k as u64;
                shape(5 * k * k / 4, k * k / 2, k / 2)
            }
            TopologySpec::Graph { nodes, links, ecmp_seed } => {
                let id: std::collections::HashMap<&str, usize> =
                    nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
                let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
                for l in links {
                    if let (Some(&a), Some(&b)) = (id.get(l.a.as_str()), id.get(l.b.as_str())) {
                        neighbours[a].push(b);
                        neighbours[b].push(a);
                    }
                }
                // An equal-cost set holds at most a node's links (parallel links included).
                let width = if ecmp_seed.is_some() { neighbours.iter().map(Vec::len).max().unwrap_or(0) } else { 0 };
                let mut groups = std::collections::HashSet::new();
                let mut rows = 0;
                for (n, nb) in nodes.iter().zip(neighbours.iter_mut()) {
                    if n.kind == NodeKind::Switch || nb.len() > 1 {
                        rows += 1;
                    }
                    if n.kind == NodeKind::Host {
                        nb.sort_unstable();
                        nb.dedup();
                        groups.insert(std::mem::take(nb));
                    }
                }
                shape(rows, groups.len() as u64, width as u64)
            }
        }
    }

    /// Bytes of the nodes and links the spec lists itself (a graph's), which every world's copy of
    /// the spec holds.
    pub fn listed_bytes(&self) -> u128 {
        match self {
            TopologySpec::Graph { nodes, links, .. } => {
                let n: usize = nodes.iter().map(|n| std::mem::size_of::<NodeSpec>() + n.name.len()).sum();
                let l: usize = links.iter().map(|l| std::mem::size_of::<LinkSpec>() + l.a.len() + l.b.len()).sum();
                (n + l) as u128
            }
            TopologySpec::ParkingLot { hosts, .. } => {
                hosts.iter().map(|h| std::mem::size_of::<HostAt>() + h.name.len() + h.at.len()).sum::<usize>() as u128
            }
            _ => 0,
        }
    }

    /// How many nodes and links the spec lists itself: a graph's nodes and links, a parking
    /// lot's hosts (the other topologies are built from a few numbers).
    pub fn listed_items(&self) -> u64 {
        match self {
            TopologySpec::Graph { nodes, links, .. } => (nodes.len() + links.len()) as u64,
            TopologySpec::ParkingLot { hosts, .. } => hosts.len() as u64,
            _ => 0,
        }
    }

    /// The packets the switches' egress queues hold when every one is full (host NICs, unbounded,
    /// are not counted): the room the memory plan leaves the queues beside the sampled series.
    pub fn switch_buffer_packets(&self, packet_bytes: u32) -> u128 {
        let p = |q: &QueueSpec| q.packets(packet_bytes);
        match self {
            TopologySpec::Dumbbell { senders, bottleneck_queue, reverse_queue, .. } => {
                p(bottleneck_queue) + *senders as u128 * p(reverse_queue.as_ref().unwrap_or(bottleneck_queue))
            }
            TopologySpec::Graph { nodes, links, .. } => {
                let switch: std::collections::HashSet<&str> =
                    nodes.iter().filter(|n| n.kind == NodeKind::Switch).map(|n| n.name.as_str()).collect();
                let default = QueueSpec::default_switch();
                links
                    .iter()
                    .map(|l| {
                        let ends = switch.contains(l.a.as_str()) as u128 + switch.contains(l.b.as_str()) as u128;
                        ends * p(l.queue.as_ref().unwrap_or(&default))
                    })
                    .sum()
            }
            TopologySpec::LeafSpine { leaves, spines, hosts_per_leaf, host, leaf_spine, .. } => {
                let (l, s, h) = (*leaves as u128, *spines as u128, *hosts_per_leaf as u128);
                l * h * p(&host.queue) + 2 * l * s * p(&leaf_spine.queue)
            }
            TopologySpec::FatTree { k, host, edge_agg, agg_core, .. } => {
                let n = (*k as u128).pow(3) / 4; // links of each tier
                n * p(&host.queue) + 2 * n * (p(&edge_agg.queue) + p(&agg_core.queue))
            }
            TopologySpec::Tree { racks, queue, .. } => {
                let hosts: u128 = racks.iter().map(|&h| h as u128).sum();
                let r = racks.len() as u128;
                (hosts + if r > 1 { 2 * r } else { 0 }) * p(queue)
            }
            TopologySpec::ParkingLot { switches, hosts, queue, .. } => {
                (2 * (*switches as u128).saturating_sub(1) + hosts.len() as u128) * p(queue)
            }
        }
    }
}

/// Name of host `i` (counted rack by rack) of a tree.
pub fn tree_host_name(i: u64) -> String {
    format!("h{i}")
}

/// Most flows the workloads of a run may generate (flow ids are 32-bit).
pub const MAX_GENERATED_FLOWS: f64 = 1e9;

impl Spec {
    /// Rate of the egress port `from -> to`, if the topology has that link (before it is built).
    pub fn port_rate(&self, r: &PortRef) -> Option<u64> {
        let (a, b) = (r.from.as_str(), r.to.as_str());
        match &self.topology {
            TopologySpec::Dumbbell { senders, bottleneck_bps, access_bps, .. } => {
                let sender = |n: &str| {
                    n.strip_prefix('s')
                        .and_then(|i| i.parse::<u32>().ok())
                        .is_some_and(|i| i < *senders && format!("s{i}") == n)
                };
                match (a, b) {
                    ("sw", "r") | ("r", "sw") => Some(*bottleneck_bps),
                    ("sw", x) | (x, "sw") if sender(x) => Some(*access_bps),
                    _ => None,
                }
            }
            TopologySpec::Graph { links, .. } => {
                links.iter().find(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a)).map(|l| l.rate_bps)
            }
            TopologySpec::LeafSpine { .. } | TopologySpec::FatTree { .. } => self.fabric_tier(a, b).map(|t| t.rate_bps),
            TopologySpec::Tree { racks, host_bps, core_bps, bottleneck_bps, bottleneck_hosts, .. } => {
                let tor = |n: &str| {
                    n.strip_prefix("tor")
                        .and_then(|i| i.parse::<usize>().ok())
                        .filter(|&i| i < racks.len() && format!("tor{i}") == n)
                };
                let host = |n: &str| {
                    n.strip_prefix('h').and_then(|i| i.parse::<u64>().ok()).filter(|&i| tree_host_name(i) == n)
                };
                let rack_of = |h: u64| {
                    let mut first = 0u64;
                    racks.iter().position(|&k| {
                        first += k as u64;
                        h < first
                    })
                };
                let (x, y) = if a.starts_with("tor") { (b, a) } else { (a, b) };
                match (x, tor(y)) {
                    ("root", Some(_)) if racks.len() > 1 => Some(*core_bps),
                    (h, Some(t)) => {
                        let i = host(h)?;
                        (rack_of(i)? == t).then(|| {
                            if bottleneck_hosts.iter().any(|s| s == h) {
                                bottleneck_bps.unwrap_or(*host_bps)
                            } else {
                                *host_bps
                            }
                        })
                    }
                    _ => None,
                }
            }
            TopologySpec::ParkingLot { switches, rate_bps, host_rate_bps, hosts, .. } => {
                let sw = |n: &str| (0..*switches).find(|&i| chain_switch_name(i) == n);
                match (sw(a), sw(b)) {
                    (Some(i), Some(j)) if i.abs_diff(j) == 1 => Some(*rate_bps),
                    (Some(_), None) | (None, Some(_)) => {
                        let (h, c) = if sw(a).is_some() { (b, a) } else { (a, b) };
                        hosts.iter().any(|x| x.name == h && x.at == c).then_some(*host_rate_bps)
                    }
                    _ => None,
                }
            }
        }
    }

    /// The tier of the fabric link between nodes `a` and `b` (either order), if the fabric has it.
    pub fn fabric_tier(&self, a: &str, b: &str) -> Option<&TierSpec> {
        let index = |n: &str, prefix: &str| -> Option<u64> {
            n.strip_prefix(prefix).and_then(|i| i.parse::<u64>().ok()).filter(|i| format!("{prefix}{i}") == n)
        };
        let linked = |x: &str, y: &str| -> Option<&TierSpec> {
            match &self.topology {
                TopologySpec::LeafSpine { leaves, spines, hosts_per_leaf, host, leaf_spine, .. } => {
                    let (l, s, h) = (*leaves as u64, *spines as u64, *hosts_per_leaf as u64);
                    if let (Some(i), Some(j)) = (index(x, "h"), index(y, "leaf")) {
                        return (i < l * h && i / h == j).then_some(host);
                    }
                    let (i, j) = (index(x, "leaf")?, index(y, "spine")?);
                    (i < l && j < s).then_some(leaf_spine)
                }
                TopologySpec::FatTree { k, host, edge_agg, agg_core, .. } => {
                    let half = *k as u64 / 2;
                    let (edges, cores) = (*k as u64 * half, half * half);
                    if let (Some(i), Some(e)) = (index(x, "h"), index(y, "edge")) {
                        return (i < edges * half && i / half == e).then_some(host);
                    }
                    if let (Some(e), Some(a)) = (index(x, "edge"), index(y, "agg")) {
                        return (e < edges && a < edges && e / half == a / half).then_some(edge_agg);
                    }
                    let (a, c) = (index(x, "agg")?, index(y, "core")?);
                    (a < edges && c < cores && a % half == c / half).then_some(agg_core)
                }
                _ => None,
            }
        };
        linked(a, b).or_else(|| linked(b, a))
    }

    /// The capacity a Poisson workload's load refers to, bit/s: its `link`'s rate, or without a
    /// link the sum of the senders' host-link rates (each sender's links in all; a listed name
    /// that is not a host adds nothing, and the network build names it). None: no such link.
    pub fn load_capacity_bps(&self, link: &Option<PortRef>, senders: &[String]) -> Option<u64> {
        if let Some(l) = link {
            return self.port_rate(l);
        }
        let mut total = 0u64;
        match &self.topology {
            TopologySpec::Graph { links, .. } => {
                let mut rate: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
                for l in links {
                    for end in [&l.a, &l.b] {
                        *rate.entry(end.as_str()).or_default() += l.rate_bps;
                    }
                }
                for s in senders {
                    total = total.saturating_add(rate.get(s.as_str()).copied().unwrap_or(0));
                }
            }
            TopologySpec::LeafSpine { hosts_per_leaf, .. } => {
                for s in senders {
                    let leaf =
                        s.strip_prefix('h').and_then(|i| i.parse::<u64>().ok()).map(|i| i / *hosts_per_leaf as u64);
                    total += leaf.and_then(|j| self.fabric_tier(s, &format!("leaf{j}"))).map_or(0, |t| t.rate_bps);
                }
            }
            TopologySpec::FatTree { k, .. } => {
                for s in senders {
                    let edge = s.strip_prefix('h').and_then(|i| i.parse::<u64>().ok()).map(|i| i / (*k as u64 / 2));
                    total += edge.and_then(|e| self.fabric_tier(s, &format!("edge{e}"))).map_or(0, |t| t.rate_bps);
                }
            }
            TopologySpec::Dumbbell { .. } => {
                for s in senders {
                    total += self.port_rate(&PortRef { from: s.clone(), to: "sw".into() }).unwrap_or(0);
                }
            }
            TopologySpec::Tree { racks, host_bps, bottleneck_bps, bottleneck_hosts, .. } => {
                let hosts: u64 = racks.iter().map(|&h| h as u64).sum();
                for s in senders {
                    let known = s.strip_prefix('h').and_then(|i| i.parse::<u64>().ok()).is_some_and(|i| i < hosts);
                    if known {
                        let slow = bottleneck_hosts.contains(s);
                        total += if slow { bottleneck_bps.unwrap_or(*host_bps) } else { *host_bps };
                    }
                }
            }
            TopologySpec::ParkingLot { host_rate_bps, hosts, .. } => {
                for s in senders {
                    if hosts.iter().any(|h| &h.name == s) {
                        total += host_rate_bps;
                    }
                }
            }
        }
        Some(total)
    }

    /// The numbers of every workload (host names are checked against the network when it is built).
    fn validate_workloads(&self) -> Result<()> {
        for (i, w) in self.workloads.iter().enumerate() {
            let f = |n: &str| format!("workloads[{i}].{n}");
            match w {
                WorkloadSpec::Poisson { load, link, sizes, senders, receivers, start_ps, stop_ps, .. } => {
                    if !(load.is_finite() && *load > 0.0 && *load < 1.0) {
                        return Err(invalid(
                            f("load"),
                            format!("{load} is out of range; allowed 0 < load < 1 (a fraction of the link's capacity)"),
                        ));
                    }
                    let Some(rate) = self.load_capacity_bps(link, senders) else {
                        let l = link.as_ref().expect("only a named link can be missing");
                        return Err(invalid(f("link"), format!("no link {} -> {} in the network", l.from, l.to)));
                    };
                    sizes.validate(&f("sizes"))?;
                    if senders.is_empty() {
                        return Err(invalid(f("senders"), "give at least one sending host"));
                    }
                    if receivers.is_empty() {
                        return Err(invalid(f("receivers"), "give at least one receiving host"));
                    }
                    for (j, s) in senders.iter().enumerate() {
                        if receivers.iter().all(|r| r == s) {
                            return Err(invalid(
                                format!("{}[{j}]", f("senders")),
                                format!("{s:?} has no receiver other than itself"),
                            ));
                        }
                    }
                    check_time(&f("start"), *start_ps, false)?;
                    if let Some(stop) = stop_ps {
                        check_time(&f("stop"), *stop, false)?;
                        if stop <= start_ps {
                            return Err(invalid(f("stop"), "must be later than start"));
                        }
                    }
                    let n = w.max_flows(self.duration_ps, rate);
                    if n > MAX_GENERATED_FLOWS {
                        return Err(invalid(f("load"), format!("the run would generate up to {n:.3e} flows; allowed at most {MAX_GENERATED_FLOWS:.0e}: shorten run.duration or lower the load")));
                    }
                }
                WorkloadSpec::Incast { client, servers, total_bytes, rounds, gap_ps, start_ps, .. } => {
                    let n = servers.len() as u64;
                    if n == 0 {
                        return Err(invalid(f("n"), "0 servers; allowed n >= 1"));
                    }
                    if let Some(j) = servers.iter().position(|s| s == client) {
                        return Err(invalid(
                            format!("{}[{j}]", f("servers")),
                            format!("{client:?} is the client; a server must be another host"),
                        ));
                    }
                    no_host_twice(&f("servers"), servers)?;
                    if *total_bytes < n || *total_bytes > MAX_FLOW_BYTES {
                        return Err(invalid(f("total"), format!("{total_bytes} bytes is out of range; allowed n ({n}) ..= {MAX_FLOW_BYTES} bytes (every server sends at least one byte)")));
                    }
                    check_count(&f("rounds"), *rounds, MAX_COUNT)?;
                    check_time(&f("gap"), *gap_ps, false)?;
                    check_time(&f("start"), *start_ps, false)?;
                    if (*rounds as f64) * (n as f64) > MAX_GENERATED_FLOWS {
                        return Err(invalid(
                            f("rounds"),
                            format!("rounds x n = {} flows; allowed at most {MAX_GENERATED_FLOWS:.0e}", rounds * n),
                        ));
                    }
                }
                WorkloadSpec::Trace { arrivals, classes, .. } => {
                    if arrivals.is_empty() {
                        return Err(invalid(f("arrivals"), "no flows; give at least one"));
                    }
                    if arrivals.len() as f64 > MAX_GENERATED_FLOWS {
                        return Err(invalid(
                            f("arrivals"),
                            format!("{} flows; allowed at most {MAX_GENERATED_FLOWS:.0e}", arrivals.len()),
                        ));
                    }
                    if let Err((at, msg)) = arrivals.check() {
                        return Err(invalid(f(&format!("arrivals{at}")), msg));
                    }
                    // Each protocol named is some class's (no classes at all: validate_classes says so).
                    for (i, name) in arrivals.protocols.iter().enumerate() {
                        if !classes.is_empty() && !classes.iter().any(|c| c.protocol.name() == name.as_str()) {
                            let mut have: Vec<&str> = vec![];
                            for c in classes {
                                if !have.contains(&c.protocol.name()) {
                                    have.push(c.protocol.name());
                                }
                            }
                            return Err(invalid(
                                f(&format!("arrivals.protocols[{i}]")),
                                format!(
                                    "{name:?} is no class's protocol; the workload's classes have {}",
                                    have.join(", ")
                                ),
                            ));
                        }
                    }
                    let hosts = &arrivals.hosts;
                    for j in 0..arrivals.len() {
                        let (s, d, bytes) =
                            (arrivals.src[j] as usize, arrivals.dst[j] as usize, arrivals.size_bytes[j]);
                        if check_time("", arrivals.at_ps[j], false).is_err() {
                            // the field's name is formatted for an error only (a trace has up to 10^7 flows)
                            check_time(&f(&format!("arrivals[{j}].start")), arrivals.at_ps[j], false)?;
                        }
                        if hosts[s] == hosts[d] {
                            return Err(invalid(
                                f(&format!("arrivals[{j}].dst")),
                                format!("{:?} is also the source; a flow runs between two hosts", hosts[d]),
                            ));
                        }
                        if bytes == 0 || bytes > MAX_FLOW_BYTES {
                            return Err(invalid(
                                f(&format!("arrivals[{j}].size")),
                                format!("{bytes} bytes is out of range; allowed 1 ..= {MAX_FLOW_BYTES} bytes"),
                            ));
                        }
                    }
                }
                WorkloadSpec::Permutation { senders, receivers, size_bytes, start_ps, .. } => {
                    if senders.is_empty() {
                        return Err(invalid(f("senders"), "give at least one sending host"));
                    }
                    if receivers.len() != senders.len() {
                        return Err(invalid(
                            f("receivers"),
                            format!(
                                "{} receivers for {} senders; a permutation pairs each sender with one receiver",
                                receivers.len(),
                                senders.len()
                            ),
                        ));
                    }
                    no_host_twice(&f("senders"), senders)?;
                    no_host_twice(&f("receivers"), receivers)?;
                    if senders.len() == 1 && senders[0] == receivers[0] {
                        return Err(invalid(
                            f("receivers"),
                            format!("{:?} is also the only sender; a flow runs between two hosts", receivers[0]),
                        ));
                    }
                    if let Some(b) = size_bytes {
                        if *b == 0 || *b > MAX_FLOW_BYTES {
                            return Err(invalid(
                                f("size"),
                                format!("{b} bytes is out of range; allowed 1 ..= {MAX_FLOW_BYTES} bytes"),
                            ));
                        }
                    }
                    check_time(&f("start"), *start_ps, false)?;
                }
            }
            validate_classes(&format!("workloads[{i}]"), w.classes())?;
        }
        Ok(())
    }

    /// Parse a JSON spec; unknown fields are errors (they are usually typos). A parse error names
    /// the path of the offending field: the spec is parsed again for it, tracking the path, which
    /// done every time cost a 200 000-flow trace's spec (5.4 MB) 109 ms instead of 77 ms.
    pub fn from_json(s: &str) -> Result<Spec> {
        if let Ok(spec) = serde_json::from_str(s) {
            return Ok(spec);
        }
        let de = &mut serde_json::Deserializer::from_str(s);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            if path.is_empty() || path == "." {
                Error::Parse(inner)
            } else {
                Error::Parse(format!("{path}: {inner}"))
            }
        })
    }

    /// Everything the world builder checks before it allocates: [`Spec::validate`] and the
    /// memory bound (`metrics.max_memory_bytes`).
    pub fn check(&self) -> Result<()> {
        self.validate()?;
        crate::sim::check_memory(self)
    }

    /// Check every field; called by the world builder before anything runs or is allocated.
    pub fn validate(&self) -> Result<()> {
        check_time("run.duration", self.duration_ps, true)?;
        check_time("run.warmup", self.warmup_ps, false)?;
        if self.warmup_ps >= self.duration_ps {
            return Err(invalid("run.warmup", "must be shorter than run.duration"));
        }
        if self.header_bytes == 0 || self.packet_bytes <= self.header_bytes || self.packet_bytes > MAX_PACKET_BYTES {
            return Err(invalid(
                "packet_bytes",
                format!(
                    "{} (header {}) is out of range; allowed 1 <= header_bytes < packet_bytes <= {MAX_PACKET_BYTES}",
                    self.packet_bytes, self.header_bytes
                ),
            ));
        }
        let (nodes, _) = self.topology.size();
        match &self.topology {
            TopologySpec::Dumbbell { senders, bottleneck_bps, access_bps, rtt_ps, bottleneck_queue, reverse_queue } => {
                check_count("network.senders", *senders as u64, MAX_NODES - 2)?;
                check_rate("network.bottleneck", *bottleneck_bps)?;
                check_rate("network.access", *access_bps)?;
                if !(rtt_ps.len() == 1 || rtt_ps.len() == *senders as usize) {
                    return Err(invalid(
                        "network.rtt",
                        format!("give one RTT or one per sender ({} values), got {}", senders, rtt_ps.len()),
                    ));
                }
                for (i, &r) in rtt_ps.iter().enumerate() {
                    let f = if rtt_ps.len() == 1 { "network.rtt".to_string() } else { format!("network.rtt[{i}]") };
                    check_time(&f, r, true)?;
                }
                bottleneck_queue.validate("network.buffer", self.packet_bytes)?;
                if let Some(q) = reverse_queue {
                    q.validate("network.reverse_queue", self.packet_bytes)?;
                }
            }
            TopologySpec::Graph { nodes: node_specs, links, .. } => {
                if node_specs.is_empty() {
                    return Err(invalid("network.nodes", "at least one node is needed"));
                }
                if nodes > MAX_NODES {
                    return Err(invalid(
                        "network.nodes",
                        format!("{nodes} nodes is out of range; allowed at most {MAX_NODES}"),
                    ));
                }
                if links.len() as u64 > MAX_LINKS {
                    return Err(invalid(
                        "network.links",
                        format!("{} links is out of range; allowed at most {MAX_LINKS}", links.len()),
                    ));
                }
                let mut names = std::collections::HashSet::new();
                for n in node_specs {
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
                    check_rate(&format!("network.links[{i}].rate"), l.rate_bps)?;
                    check_time(&format!("network.links[{i}].delay"), l.delay_ps, false)?;
                    if let Some(q) = &l.queue {
                        q.validate(&format!("network.links[{i}].queue"), self.packet_bytes)?;
                    }
                }
            }
            TopologySpec::LeafSpine { leaves, spines, hosts_per_leaf, host, leaf_spine, .. } => {
                for (field, v) in
                    [("network.leaves", leaves), ("network.spines", spines), ("network.hosts_per_leaf", hosts_per_leaf)]
                {
                    check_count(field, *v as u64, MAX_NODES)?;
                }
                let (_, links) = leaf_spine_size(*leaves, *spines, *hosts_per_leaf);
                if nodes > MAX_NODES || links > MAX_LINKS {
                    return Err(invalid(
                        "network.hosts_per_leaf",
                        format!(
                            "{leaves} leaves x {hosts_per_leaf} hosts and {spines} spines make {nodes} nodes and {links} \
                             links; allowed at most {MAX_NODES} nodes and {MAX_LINKS} links"
                        ),
                    ));
                }
                host.validate("network.tiers.host", self.packet_bytes)?;
                leaf_spine.validate("network.tiers.leaf_spine", self.packet_bytes)?;
            }
            TopologySpec::FatTree { k, host, edge_agg, agg_core, .. } => {
                let top = max_fat_tree_k();
                if *k < 2 || *k % 2 == 1 || *k > top {
                    return Err(invalid(
                        "network.k",
                        format!("{k} is out of range; allowed an even k in 2 ..= {top} (k pods of k/2 edge and k/2 aggregation switches)"),
                    ));
                }
                host.validate("network.tiers.host", self.packet_bytes)?;
                edge_agg.validate("network.tiers.edge_agg", self.packet_bytes)?;
                agg_core.validate("network.tiers.agg_core", self.packet_bytes)?;
            }
            TopologySpec::Tree { racks, host_bps, core_bps, bottleneck_bps, bottleneck_hosts, rtt_ps, queue } => {
                if racks.is_empty() || racks.len() as u64 > MAX_NODES {
                    return Err(invalid(
                        "network.racks",
                        format!("{} racks is out of range; allowed 1 ..= {MAX_NODES}", racks.len()),
                    ));
                }
                let hosts: u64 = racks.iter().map(|&h| h as u64).sum();
                if hosts == 0 {
                    return Err(invalid("network.hosts", "a tree with no hosts; give at least one host per rack"));
                }
                if nodes > MAX_NODES {
                    return Err(invalid(
                        "network.hosts",
                        format!("{nodes} nodes is out of range; allowed at most {MAX_NODES}"),
                    ));
                }
                check_rate("network.host_link", *host_bps)?;
                check_rate("network.core_link", *core_bps)?;
                if let Some(b) = bottleneck_bps {
                    check_rate("network.bottleneck", *b)?;
                }
                if !bottleneck_hosts.is_empty() && bottleneck_bps.is_none() {
                    return Err(invalid("network.bottleneck", "required when network.bottleneck_hosts is given"));
                }
                for (i, h) in bottleneck_hosts.iter().enumerate() {
                    let known = h
                        .strip_prefix('h')
                        .and_then(|n| n.parse::<u64>().ok())
                        .is_some_and(|n| n < hosts && tree_host_name(n) == *h);
                    if !known {
                        return Err(invalid(
                            format!("network.bottleneck_hosts[{i}]"),
                            format!("{h:?} is not a host of the tree; allowed h0 .. h{}", hosts - 1),
                        ));
                    }
                }
                check_time("network.rtt", *rtt_ps, true)?;
                queue.validate("network.buffer", self.packet_bytes)?;
            }
            TopologySpec::ParkingLot { switches, rate_bps, delay_ps, host_rate_bps, host_delay_ps, hosts, queue } => {
                if !(1..=MAX_NODES).contains(&(*switches as u64)) {
                    return Err(invalid(
                        "network.switches",
                        format!("{switches} is out of range; allowed 1 ..= {MAX_NODES} switches"),
                    ));
                }
                if hosts.is_empty() {
                    return Err(invalid("network.hosts", "a parking lot with no hosts; give at least two"));
                }
                if nodes > MAX_NODES {
                    return Err(invalid(
                        "network.hosts",
                        format!("{nodes} nodes is out of range; allowed at most {MAX_NODES}"),
                    ));
                }
                check_rate("network.rate", *rate_bps)?;
                check_rate("network.host_rate", *host_rate_bps)?;
                check_time("network.delay", *delay_ps, false)?;
                check_time("network.host_delay", *host_delay_ps, false)?;
                let mut names = std::collections::HashSet::new();
                for (i, h) in hosts.iter().enumerate() {
                    let is_switch = |n: &str| (0..*switches).any(|k| chain_switch_name(k) == n);
                    if is_switch(&h.name) || !names.insert(h.name.as_str()) {
                        return Err(invalid(
                            format!("network.hosts[{i}].name"),
                            format!("{:?} is taken (switches are C1 .. C{switches})", h.name),
                        ));
                    }
                    if !is_switch(&h.at) {
                        return Err(invalid(
                            format!("network.hosts[{i}].at"),
                            format!("{:?} is not a switch; allowed C1 .. C{switches}", h.at),
                        ));
                    }
                }
                queue.validate("network.buffer", self.packet_bytes)?;
            }
        }
        check_count("host_backlog_pkt", self.host_backlog_pkt, MAX_COUNT)?;
        if self.host_jitter_ps > MAX_HOST_JITTER_PS {
            return Err(invalid(
                "host_jitter_ps",
                format!("{} ps is out of range; allowed 0 .. {MAX_HOST_JITTER_PS} ps (1 s)", self.host_jitter_ps),
            ));
        }
        if self.flows.is_empty() && self.workloads.is_empty() && self.l2.is_none() {
            return Err(invalid(
                "flows",
                "no flows: give at least one [[flows]], [[workloads]] or [[l2.sources]] entry",
            ));
        }
        if let Some(l2) = &self.l2 {
            l2.validate(self.duration_ps)?;
        }
        if self.flows.len() as u64 > MAX_FLOWS {
            return Err(invalid(
                "flows",
                format!("{} flows is out of range; allowed at most {MAX_FLOWS}", self.flows.len()),
            ));
        }
        for (i, f) in self.flows.iter().enumerate() {
            let field = |n: &str| format!("flows[{i}].{n}");
            if f.src == f.dst {
                return Err(invalid(field("dst"), "a flow needs two different hosts"));
            }
            validate_flow_options(f, &field)?;
        }
        self.validate_workloads()?;
        let m = &self.metrics;
        for (name, v) in [
            ("metrics.queue_interval", m.queue_interval_ps),
            ("metrics.throughput_interval", m.throughput_interval_ps),
            ("metrics.cwnd_interval", m.cwnd_interval_ps),
        ] {
            check_time(name, v, true)?;
        }
        if let Some(mon) = &m.monitor {
            for (i, r) in mon.iter().enumerate() {
                if let Some(j) = mon[..i].iter().position(|q| q == r) {
                    return Err(invalid(
                        format!("metrics.monitor[{i}]"),
                        format!(
                            "port {}->{} is already monitored (metrics.monitor[{j}]); list each port once",
                            r.from, r.to
                        ),
                    ));
                }
            }
        }
        match (&m.monitor, m.monitor_first) {
            (_, Some(0)) => return Err(invalid("metrics.monitor_first", "0 is out of range; allowed >= 1")),
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "metrics.monitor_first",
                    "applies to the default ports only; give metrics.monitor or metrics.monitor_first, not both",
                ))
            }
            _ => {}
        }
        if let Some(ids) = &m.trace_flows {
            let mut seen = std::collections::HashSet::new();
            for (k, &i) in ids.iter().enumerate() {
                // Ids past the listed flows name a workload's flows, in the order they start.
                let listed = self.flows.len() as u64;
                let ids = if self.workloads.is_empty() { listed } else { listed + MAX_GENERATED_FLOWS as u64 };
                if i >= ids {
                    let allowed = match (listed, self.workloads.is_empty()) {
                        (0, true) => "the scenario has no flows (no [[flows]], no [[workloads]])".to_string(),
                        (n, true) => format!("allowed 0 .. {} (the listed [[flows]])", n - 1),
                        (n, false) => format!(
                            "allowed 0 .. {} ({}the workloads' flows in the order they start, at most \
                             {MAX_GENERATED_FLOWS:.0e})",
                            ids - 1,
                            if n == 0 { String::new() } else { format!("the {n} listed [[flows]], then ") }
                        ),
                    };
                    return Err(invalid(
                        format!("metrics.trace_flows[{k}]"),
                        format!("flow {i} does not exist; {allowed}"),
                    ));
                }
                if !seen.insert(i) {
                    return Err(invalid(format!("metrics.trace_flows[{k}]"), format!("flow {i} is listed twice")));
                }
            }
        }
        if !(MIN_MEMORY_BYTES..=MAX_MEMORY_BYTES).contains(&m.max_memory_bytes) {
            return Err(invalid(
                "metrics.max_memory",
                format!(
                    "{} bytes is out of range; allowed 1MB .. 1TB ({MIN_MEMORY_BYTES} ..= {MAX_MEMORY_BYTES} bytes)",
                    m.max_memory_bytes
                ),
            ));
        }
        self.validate_partitions()
    }

    /// `partitions`: 1 ..= `MAX_PARTITIONS`; more than 1 only where a split is defined and exact
    /// (see `sim/partition.rs`): a fat-tree (at most k parts, by pods) or a leaf-spine (at most one
    /// part per leaf), without L2 sources, CHOKe queues (which take back packets already sent on)
    /// or incast workloads (whose next round waits for the last flow of the round, anywhere).
    fn validate_partitions(&self) -> Result<()> {
        let p = self.partitions;
        if !(1..=MAX_PARTITIONS).contains(&p) {
            return Err(invalid("run.partitions", format!("{p} is out of range; allowed 1 ..= {MAX_PARTITIONS}")));
        }
        if p == 1 {
            return Ok(());
        }
        let (most, tiers): (u32, Vec<(&str, &TierSpec)>) = match &self.topology {
            TopologySpec::FatTree { k, host, edge_agg, agg_core, .. } => (
                *k,
                vec![
                    ("network.tiers.host", host),
                    ("network.tiers.edge_agg", edge_agg),
                    ("network.tiers.agg_core", agg_core),
                ],
            ),
            TopologySpec::LeafSpine { leaves, host, leaf_spine, .. } => {
                (*leaves, vec![("network.tiers.host", host), ("network.tiers.leaf_spine", leaf_spine)])
            }
            other => {
                return Err(invalid(
                    "run.partitions",
                    format!(
                    "{p} partitions need a fat_tree or leaf_spine topology (split by pods or leaves), not {}; use 1",
                    other.kind()
                ),
                ))
            }
        };
        if p > most {
            let what = if matches!(self.topology, TopologySpec::FatTree { .. }) { "pods (k)" } else { "leaves" };
            return Err(invalid(
                "run.partitions",
                format!("{p} is out of range; allowed 1 ..= {most}, the number of {what}"),
            ));
        }
        if self.l2.is_some() {
            return Err(invalid("run.partitions", format!("{p} partitions cannot carry L2 sources ([l2]); use 1")));
        }
        for (field, t) in tiers {
            if t.queue.aqm.reaches_into_queue() {
                return Err(invalid(
                    "run.partitions",
                    format!(
                        "{p} partitions cannot run {} queues ({field}.aqm), which drop packets already queued; use 1",
                        t.queue.aqm.name()
                    ),
                ));
            }
        }
        if let Some(i) = self.workloads.iter().position(|w| matches!(w, WorkloadSpec::Incast { .. })) {
            return Err(invalid(
                "run.partitions",
                format!("{p} partitions cannot run incast workloads (workloads[{i}]), whose rounds wait on every flow; use 1"),
            ));
        }
        Ok(())
    }
}
