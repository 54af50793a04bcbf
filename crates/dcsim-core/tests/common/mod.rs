//! Scenario builders shared by the engine's integration tests.
#![allow(dead_code)]

use dcsim_core::metrics::{Column, Table};
use dcsim_core::scenario::*;
use dcsim_core::Sim;

pub const GBPS: u64 = 1_000_000_000;
pub const US: u64 = 1_000_000;
pub const MS: u64 = 1_000_000_000;

/// N long-lived flows of `protocol` through the papers' dumbbell.
#[allow(clippy::too_many_arguments)]
pub fn dumbbell(
    n: u32,
    rate_bps: u64,
    access_bps: u64,
    rtt_ps: u64,
    buffer_pkt: u64,
    aqm: AqmSpec,
    protocol: ProtocolSpec,
    duration_ps: u64,
    warmup_ps: u64,
) -> Spec {
    let flows = (0..n).map(|i| FlowSpec::long_lived(format!("s{i}"), "r", protocol.clone())).collect();
    Spec {
        seed: 1,
        duration_ps,
        warmup_ps,
        packet_bytes: 1500,
        header_bytes: 40,
        topology: TopologySpec::Dumbbell {
            senders: n,
            bottleneck_bps: rate_bps,
            access_bps,
            rtt_ps: vec![rtt_ps],
            bottleneck_queue: QueueSpec { capacity: Amount::Packets(buffer_pkt), aqm },
            reverse_queue: None,
        },
        flows,
        workloads: vec![],
        metrics: MetricsSpec::default(),
        host_backlog_pkt: DEFAULT_HOST_BACKLOG_PKT,
        host_jitter_ps: 0,
        l2: None,
        partitions: 1,
    }
}

pub fn dctcp(g: f64) -> ProtocolSpec {
    ProtocolSpec::dctcp(g, 1.0)
}

pub fn run(spec: Spec) -> (Sim, Vec<Table>) {
    let mut sim = Sim::new(spec).expect("valid spec");
    sim.run().expect("run");
    let t = sim.results().expect("results");
    (sim, t)
}

pub fn table<'a>(tables: &'a [Table], name: &str) -> &'a Table {
    tables.iter().find(|t| t.name == name).expect("table")
}

/// Row index of the monitored bottleneck port in the ports table.
pub fn bottleneck_row(tables: &[Table]) -> usize {
    let ports = table(tables, "ports");
    ports.bool("monitored").iter().position(|&m| m).expect("a monitored port")
}

pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Jain's fairness index (sum x)^2 / (n sum x^2).
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// Every column of every table as bit patterns (f64 by its bits, so NaN equals NaN; strings by
/// length), for bit-identical replay checks.
pub fn bits(t: &[Table]) -> Vec<(String, String, Vec<u64>)> {
    let mut out = Vec::new();
    for tab in t {
        for (name, col) in &tab.columns {
            let v = match col {
                Column::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
                Column::U64(v) => v.clone(),
                Column::Bool(v) => v.iter().map(|&b| b as u64).collect(),
                Column::Str(v) => v.iter().map(|s| s.len() as u64).collect(),
            };
            out.push((tab.name.to_string(), name.to_string(), v));
        }
    }
    out
}

/// A string column of a table (panics naming it if there is none).
pub fn strs<'a>(t: &'a Table, name: &str) -> Vec<&'a str> {
    match t.get(name) {
        Some(Column::Str(v)) => v.iter().collect(),
        _ => panic!("no string column {name}"),
    }
}

/// Relative slack of `fct >= ideal`: both are picosecond integers turned into f64 seconds, so
/// only the conversion's rounding (a few ulps) may separate two equal times.
pub const FCT_ROUNDING: f64 = 1e-12;

/// The buffer, in packets, of the switch port `src -> dst` of topology `t` (None: a host's NIC,
/// a byte buffer, or a topology not handled here).
pub fn buffer_of(t: &TopologySpec, src: &str, dst: &str) -> Option<u64> {
    let cap = |q: &QueueSpec| match q.capacity {
        Amount::Packets(n) => Some(n),
        Amount::Bytes(_) => None,
    };
    match t {
        TopologySpec::Dumbbell { bottleneck_queue, reverse_queue, .. } => match (src, dst) {
            ("sw", "r") => cap(bottleneck_queue),
            ("sw", _) => cap(reverse_queue.as_ref().unwrap_or(bottleneck_queue)),
            _ => None,
        },
        _ if src.starts_with('h') => None,
        TopologySpec::LeafSpine { host, leaf_spine, .. } => {
            cap(if dst.starts_with('h') { &host.queue } else { &leaf_spine.queue })
        }
        TopologySpec::FatTree { host, edge_agg, agg_core, .. } => cap(if dst.starts_with('h') {
            &host.queue
        } else if src.starts_with("core") || dst.starts_with("core") {
            &agg_core.queue
        } else {
            &edge_agg.queue
        }),
        _ => None,
    }
}

/// The fuzzers' physics of a finished run: every port's utilization in [0, 1] and its largest
/// queue within its buffer; no flow delivering more than its size, a finished one exactly its size
/// and no faster than its ideal FCT.
pub fn check_physics(spec: &Spec, t: &[Table]) {
    let ports = table(t, "ports");
    let (src, dst) = (strs(ports, "src"), strs(ports, "dst"));
    for (i, (&u, &q)) in ports.f64("utilization").iter().zip(ports.f64("q_max_pkt")).enumerate() {
        assert!(u.is_nan() || (0.0..=1.0).contains(&u), "{} -> {}: utilization {u}", src[i], dst[i]);
        if let Some(cap) = buffer_of(&spec.topology, src[i], dst[i]) {
            assert!(q.is_nan() || q <= cap as f64, "{} -> {}: q_max {q} > buffer {cap}", src[i], dst[i]);
        }
    }
    let flows = table(t, "flows");
    let (size, delivered) = (flows.f64("size_bytes"), flows.u64("delivered_bytes_whole_run"));
    let (fct, ideal) = (flows.f64("fct_s"), flows.f64("ideal_fct_s"));
    for i in 0..flows.rows() {
        if size[i].is_finite() {
            assert!(delivered[i] as f64 <= size[i], "flow {i}: delivered {} > size {}", delivered[i], size[i]);
        }
        if fct[i].is_finite() {
            assert_eq!(delivered[i] as f64, size[i], "flow {i} finished without its whole size");
            assert!(fct[i] >= ideal[i] * (1.0 - FCT_ROUNDING), "flow {i}: FCT {} s < ideal {} s", fct[i], ideal[i]);
        }
    }
}
