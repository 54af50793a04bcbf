//! The L2 family in the event loop: rate-based sources (`transport/rate.rs`) with their reaction
//! points, congestion points on switch egress ports, and feedback frames that travel back over
//! the real links (DSM paper §II.A, Fig. 1).
//!
//! The world (`sim.rs`) calls this module at four edges and nowhere inside the TCP path:
//! * [`L2World::handle`] for its own events (a source's next frame, an RP timer, a delayed
//!   feedback emission, rate sampling);
//! * [`L2World::on_enqueue`] when a frame was enqueued at a port (the CP samples it);
//! * [`L2World::on_deliver`] when a frame or a feedback frame reaches its host;
//! * [`L2World::on_drop`] when a queue dropped a frame.
//!
//! Packets to inject go to [`L2World::out`] as (node, packet), events to schedule to
//! [`L2World::events`]; the world drains both.
//!
//! Loop delay. A CP samples a frame on arrival and sends the feedback frame back to the frame's
//! source from the switch, over the links; before that the feedback waits an extra *generation
//! latency* (`feedback_latency`: fixed, per source, or uniform in [lo, hi] per feedback frame,
//! from the CP's own RNG stream). The realised loop delay of a feedback frame is the time from
//! the sampled frame's departure at its source to the feedback's arrival there (forward delay +
//! generation latency + backward delay, as the DSM paper's τ_i = τ_i^f + τ_i^b); the sources
//! table reports its mean, min and max per source.
//!
//! Only L2 frames are sampled by a CP (TCP packets through the same port are not: they have no
//! reaction point). A QCN feedback frame carries only the 6-bit quantized Fb the RP uses.

use serde::{Deserialize, Serialize};

use super::{Cp, CpId, Feedback, L2Spec, Rp};
use crate::error::{invalid, Error, Result};
use crate::metrics::{Column, Table};
use crate::net::{Network, PortId};
use crate::packet::{Kind, NodeId, Packet};
use crate::rng::{stream, Rng, Stream};
use crate::scenario::{Amount, NodeKind, PortRef, MAX_FLOWS};
use crate::transport::rate::{RateSource, RateStats};
use crate::units::{Rate, Time, MAX_RATE_BPS, MAX_TIME_PS, MIN_RATE_BPS};

fn default_frame_bytes() -> u32 {
    1000 // DSM paper §V: 1 KB frames (T = 80 us is 100 frames at 10 Gbps with p = 0.01)
}
fn default_feedback_bytes() -> u32 {
    64 // the minimum Ethernet frame (802.1Qau CNMs are short frames)
}
fn default_rate_interval_ps() -> u64 {
    100_000_000 // 100 us
}

/// The extra latency of generating a feedback frame, on top of the links' delays.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LatencySpec {
    Fixed {
        ps: u64,
    },
    /// One value per listed source, in the order of `sources` (after expanding `count`). A
    /// Poisson short flow takes the latency of the first listed source on its own source host
    /// (the feedback of one host's flows is generated alike); a `poisson` entry whose host has
    /// no listed source is an error.
    PerSource {
        ps: Vec<u64>,
    },
    /// Drawn per feedback frame, uniform in [lo, hi] (the paper's time-varying delays).
    Uniform {
        lo_ps: u64,
        hi_ps: u64,
    },
}

impl Default for LatencySpec {
    fn default() -> Self {
        LatencySpec::Fixed { ps: 0 }
    }
}

/// One rate-based source (or `count` identical ones).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub start_ps: u64,
    /// Stop sending at this time; default the end of the run.
    #[serde(default)]
    pub stop_ps: Option<u64>,
    /// Finite payload, bytes (its FCT is recorded); default long-lived.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// Rate at the start; default the line rate of the source's host link. (The DSM paper starts
    /// every flow at "the bottleneck capacity": the same where the host links run at the
    /// bottleneck's rate, as in its experiments; give it otherwise.)
    #[serde(default)]
    pub initial_rate_bps: Option<u64>,
    /// Identical sources on this pair.
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

/// Short flows between two hosts: finite sources arriving as a Poisson process (the DSM paper's
/// Fig. 10 "mixed flows"), drawn when the world is built from the scenario seed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    pub src: String,
    pub dst: String,
    /// Arrivals per second.
    pub rate_per_s: f64,
    /// Mean size, bytes; sizes are exponential with this mean (at least one byte).
    pub mean_bytes: u64,
    #[serde(default)]
    pub start_ps: u64,
    /// No arrival at or after this time; default the end of the run.
    #[serde(default)]
    pub stop_ps: Option<u64>,
}

impl PoissonSpec {
    /// An upper bound of the arrivals in a run of `duration_ps` (mean + 6 sd + 1).
    pub fn max_arrivals(&self, duration_ps: u64) -> f64 {
        let stop = self.stop_ps.unwrap_or(duration_ps).min(duration_ps);
        let mean = self.rate_per_s * (stop.saturating_sub(self.start_ps)) as f64 / 1e12;
        mean + 6.0 * mean.sqrt() + 1.0
    }
}

/// The `[l2]` part of a scenario: one scheme for every CP and RP.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct L2Setup {
    pub scheme: L2Spec,
    #[serde(default = "default_frame_bytes")]
    pub frame_bytes: u32,
    #[serde(default = "default_feedback_bytes")]
    pub feedback_bytes: u32,
    /// Switch egress ports with a congestion point; default: the monitored switch ports.
    #[serde(default)]
    pub cps: Option<Vec<PortRef>>,
    #[serde(default)]
    pub feedback_latency: LatencySpec,
    pub sources: Vec<SourceSpec>,
    /// Short flows arriving as Poisson processes.
    #[serde(default)]
    pub poisson: Vec<PoissonSpec>,
    /// Sampling interval of the per-source rate trace, ps.
    #[serde(default = "default_rate_interval_ps")]
    pub rate_interval_ps: u64,
}

/// Most L2 sources in a scenario.
pub const MAX_SOURCES: u64 = MAX_FLOWS;

impl L2Setup {
    /// Listed sources after expanding `count`.
    pub fn source_count(&self) -> u64 {
        self.sources.iter().map(|s| s.count as u64).sum()
    }

    /// An upper bound of all sources (listed + Poisson arrivals) in a run of `duration_ps`.
    pub fn max_sources(&self, duration_ps: u64) -> f64 {
        self.source_count() as f64 + self.poisson.iter().map(|p| p.max_arrivals(duration_ps)).sum::<f64>()
    }

    /// Checks that need no network.
    pub fn validate(&self, duration_ps: u64) -> Result<()> {
        self.scheme.validate("l2.scheme")?;
        if !(64..=crate::scenario::MAX_PACKET_BYTES).contains(&self.frame_bytes) {
            return Err(invalid(
                "l2.frame_bytes",
                format!(
                    "{} B is out of range; allowed 64 ..= {} B",
                    self.frame_bytes,
                    crate::scenario::MAX_PACKET_BYTES
                ),
            ));
        }
        if !(1..=crate::scenario::MAX_PACKET_BYTES).contains(&self.feedback_bytes) {
            return Err(invalid(
                "l2.feedback_bytes",
                format!(
                    "{} B is out of range; allowed 1 ..= {} B",
                    self.feedback_bytes,
                    crate::scenario::MAX_PACKET_BYTES
                ),
            ));
        }
        if self.sources.is_empty() && self.poisson.is_empty() {
            return Err(invalid("l2.sources", "no sources: give at least one [[l2.sources]] or [[l2.poisson]] entry"));
        }
        let n = self.source_count();
        if n > MAX_SOURCES {
            return Err(invalid("l2.sources", format!("{n} sources is out of range; allowed at most {MAX_SOURCES}")));
        }
        let time = |field: String, ps: u64| -> Result<()> {
            if ps > MAX_TIME_PS {
                Err(invalid(field, format!("{ps} ps is out of range; allowed at most {MAX_TIME_PS} ps (10^6 s)")))
            } else {
                Ok(())
            }
        };
        for (i, s) in self.sources.iter().enumerate() {
            let f = |n: &str| format!("l2.sources[{i}].{n}");
            if s.src == s.dst {
                return Err(invalid(f("dst"), "a source needs two different hosts"));
            }
            if s.count == 0 {
                return Err(invalid(f("count"), "must be at least 1"));
            }
            time(f("start"), s.start_ps)?;
            if let Some(stop) = s.stop_ps {
                time(f("stop"), stop)?;
                if stop <= s.start_ps {
                    return Err(invalid(f("stop"), format!("{stop} ps must be later than start = {} ps", s.start_ps)));
                }
            }
            if let Some(b) = s.size_bytes {
                if !(1..=crate::scenario::MAX_FLOW_BYTES).contains(&b) {
                    return Err(invalid(
                        f("size"),
                        format!(
                            "{b} bytes is out of range; allowed 1 ..= {} bytes, or omit it",
                            crate::scenario::MAX_FLOW_BYTES
                        ),
                    ));
                }
            }
            if let Some(r) = s.initial_rate_bps {
                if !(MIN_RATE_BPS..=MAX_RATE_BPS).contains(&r) {
                    return Err(invalid(
                        f("initial_rate"),
                        format!(
                            "{r} bit/s is out of range; a source needs a rate in {} ..= {} bit/s",
                            MIN_RATE_BPS, MAX_RATE_BPS
                        ),
                    ));
                }
            }
        }
        match &self.feedback_latency {
            LatencySpec::Fixed { ps } => time("l2.feedback_latency".into(), *ps)?,
            LatencySpec::PerSource { ps } => {
                if ps.len() as u64 != n {
                    return Err(invalid(
                        "l2.feedback_latency",
                        format!("give one latency per source ({n} values), got {}", ps.len()),
                    ));
                }
                for (i, &v) in ps.iter().enumerate() {
                    time(format!("l2.feedback_latency[{i}]"), v)?;
                }
                for (i, p) in self.poisson.iter().enumerate() {
                    if !self.sources.iter().any(|s| s.src == p.src) {
                        return Err(invalid(
                            format!("l2.poisson[{i}].src"),
                            format!(
                                "{:?} has no listed source, so a per-source feedback_latency gives its short flows none; \
                                 list a source on {:?} (its short flows take that source's latency) or give one latency or {{lo, hi}}",
                                p.src, p.src
                            ),
                        ));
                    }
                }
            }
            LatencySpec::Uniform { lo_ps, hi_ps } => {
                time("l2.feedback_latency.lo".into(), *lo_ps)?;
                time("l2.feedback_latency.hi".into(), *hi_ps)?;
                if lo_ps > hi_ps {
                    return Err(invalid(
                        "l2.feedback_latency",
                        format!("lo = {lo_ps} ps is larger than hi = {hi_ps} ps; allowed lo <= hi"),
                    ));
                }
            }
        }
        for (i, p) in self.poisson.iter().enumerate() {
            let f = |n: &str| format!("l2.poisson[{i}].{n}");
            if p.src == p.dst {
                return Err(invalid(f("dst"), "short flows need two different hosts"));
            }
            if !(p.rate_per_s.is_finite() && p.rate_per_s > 0.0 && p.rate_per_s <= 1e9) {
                return Err(invalid(
                    f("rate"),
                    format!("{} arrivals/s is out of range; allowed 0 < rate <= 1e9 /s", p.rate_per_s),
                ));
            }
            if !(1..=crate::scenario::MAX_FLOW_BYTES).contains(&p.mean_bytes) {
                return Err(invalid(
                    f("mean_size"),
                    format!("{} B is out of range; allowed 1 ..= {} B", p.mean_bytes, crate::scenario::MAX_FLOW_BYTES),
                ));
            }
            time(f("start"), p.start_ps)?;
            if let Some(stop) = p.stop_ps {
                time(f("stop"), stop)?;
            }
        }
        let most = self.max_sources(duration_ps);
        if most > MAX_SOURCES as f64 {
            return Err(invalid(
                "l2.poisson",
                format!("up to {most:.0} sources in this run is out of range; allowed at most {MAX_SOURCES}: lower the rate or shorten the run"),
            ));
        }
        if self.rate_interval_ps == 0 || self.rate_interval_ps > MAX_TIME_PS {
            return Err(invalid(
                "l2.rate_interval",
                format!("{} ps is out of range; allowed 1 ps ..= 10^6 s", self.rate_interval_ps),
            ));
        }
        Ok(())
    }
}

/// Events of the L2 family.
#[derive(Clone, Copy, Debug)]
pub enum L2Ev {
    /// Source i's armed frame departure.
    Send(u32),
    /// Source i's RP timer (QCN).
    Timer(u32),
    /// A feedback frame (index into the pending slab) leaves its switch after its latency.
    Emit(u32),
    /// Sample every source's rate.
    Sample,
    /// A host NIC that sources wait for has room again (host backpressure).
    NicRoom(PortId),
}

/// The sources waiting for room in one host NIC, served in turn by `World::nic_turns` (as
/// `sim::NicWait` serves TCP flows): several sources of one host share its line rate frame by frame instead of sending
/// above it into an ever longer host queue that no congestion point sees.
#[derive(Default)]
struct NicTurns {
    sources: std::collections::VecDeque<u32>,
    /// A `NicRoom` wake-up for this NIC is scheduled.
    armed: bool,
    /// With TCP flows waiting for the NIC too, whether a flow takes the next turn (they alternate).
    tcp_next: bool,
}

struct Source {
    tx: RateSource,
    rp: Rp,
    rng: Rng,
    nic: PortId,
    line: Rate,
    armed_timer: Option<Time>,
    at_warmup: Option<RateStats>,
    /// Generated by `poisson[w]` (None: listed).
    origin: Option<u32>,
    /// Feedback generation latency with a per-source list (0 otherwise), ps.
    latency_ps: u64,
    /// In its NIC's `NicTurns`: its `Send` events wait for its turn.
    waiting: bool,
}

struct CpState {
    port: PortId,
    cp: Cp,
    rng: Rng,
    samples: u64,
    feedback: u64,
    at_warmup: (u64, u64),
}

pub struct L2World {
    setup: L2Setup,
    sources: Vec<Source>,
    /// CP of each port, if any (index into `cps`).
    cp_of_port: Vec<Option<u32>>,
    cps: Vec<CpState>,
    /// Feedback frames waiting for their generation latency: (switch, packet).
    pending: Vec<Option<(NodeId, Packet)>>,
    free: Vec<u32>,
    /// Packets to inject: (node that sends it, packet).
    pub out: Vec<(NodeId, Packet)>,
    /// Events to schedule.
    pub events: Vec<(Time, L2Ev)>,
    end: Time,
    rates_t: Vec<f64>,
    rates_src: Vec<u64>,
    rates_bps: Vec<f64>,
    /// Sources waiting for room, per host NIC.
    nic_turns: rustc_hash::FxHashMap<PortId, NicTurns>,
}

impl L2World {
    /// Build the sources and CPs on `net`; the switch ports of `default_monitored` (every default
    /// monitored port, however many are sampled) are the CPs unless `setup.cps` names them.
    pub fn new(setup: &L2Setup, net: &Network, default_monitored: &[PortId], seed: u64, end: Time) -> Result<L2World> {
        let mut sources = Vec::new();
        for (i, s) in setup.sources.iter().enumerate() {
            let f = |n: &str| format!("l2.sources[{i}].{n}");
            let host = |name: &str, field: String| -> Result<NodeId> {
                let id = net.node_id(name).ok_or_else(|| invalid(&field, format!("unknown node {name:?}")))?;
                if net.nodes[id as usize].kind != NodeKind::Host {
                    return Err(invalid(&field, format!("{name:?} is a switch; sources run between hosts")));
                }
                Ok(id)
            };
            let (src, dst) = (host(&s.src, f("src"))?, host(&s.dst, f("dst"))?);
            let Some(nic) = net.route(src, dst) else {
                return Err(invalid(f("dst"), format!("no path from {:?} to {:?}", s.src, s.dst)));
            };
            if net.route(dst, src).is_none() {
                return Err(invalid(f("src"), format!("no path back from {:?} to {:?} for feedback", s.dst, s.src)));
            }
            let line = net.ports[nic as usize].rate;
            setup.scheme.validate_line_rate("l2.scheme", line)?;
            let initial = Rate(s.initial_rate_bps.unwrap_or(line.bps()));
            if initial.bps() > line.bps() {
                return Err(invalid(
                    f("initial_rate"),
                    format!(
                        "{} is above the line rate of {}'s link ({})",
                        crate::units::show_bps(initial.bps()),
                        s.src,
                        crate::units::show_bps(line.bps())
                    ),
                ));
            }
            for _ in 0..s.count {
                let id = sources.len() as u32;
                let stop = Time(s.stop_ps.unwrap_or(end.0).min(end.0));
                let tx = RateSource::new(id, src, dst, setup.frame_bytes, Time(s.start_ps), stop, s.size_bytes);
                let rp = setup.scheme.rp(line, initial);
                let rng = stream(seed, Stream::L2Source, id as u64);
                let latency_ps = match &setup.feedback_latency {
                    LatencySpec::PerSource { ps } => *ps.get(id as usize).ok_or_else(|| {
                        invalid("l2.feedback_latency", format!("no latency for source {id}; give one per source"))
                    })?,
                    _ => 0,
                };
                sources.push(Source {
                    tx,
                    rp,
                    rng,
                    nic,
                    line,
                    armed_timer: None,
                    waiting: false,
                    at_warmup: None,
                    origin: None,
                    latency_ps,
                });
            }
        }
        for (w, p) in setup.poisson.iter().enumerate() {
            let f = |n: &str| format!("l2.poisson[{w}].{n}");
            let host = |name: &str, field: String| -> Result<NodeId> {
                let id = net.node_id(name).ok_or_else(|| invalid(&field, format!("unknown node {name:?}")))?;
                if net.nodes[id as usize].kind != NodeKind::Host {
                    return Err(invalid(&field, format!("{name:?} is a switch; sources run between hosts")));
                }
                Ok(id)
            };
            let (src, dst) = (host(&p.src, f("src"))?, host(&p.dst, f("dst"))?);
            let Some(nic) = net.route(src, dst) else {
                return Err(invalid(f("dst"), format!("no path from {:?} to {:?}", p.src, p.dst)));
            };
            if net.route(dst, src).is_none() {
                return Err(invalid(f("src"), format!("no path back from {:?} to {:?} for feedback", p.dst, p.src)));
            }
            let line = net.ports[nic as usize].rate;
            setup.scheme.validate_line_rate("l2.scheme", line)?;
            let stop = Time(p.stop_ps.unwrap_or(end.0).min(end.0));
            // Per-source latencies: the first listed source on the same host (see LatencySpec).
            let latency_ps = match &setup.feedback_latency {
                LatencySpec::PerSource { .. } => {
                    let Some(first) = sources.iter().find(|x| x.origin.is_none() && x.tx.src == src) else {
                        return Err(invalid(
                            f("src"),
                            format!("{:?} has no listed source to take a per-source feedback_latency from", p.src),
                        ));
                    };
                    first.latency_ps
                }
                _ => 0,
            };
            let mut rng = stream(seed, Stream::L2Workload, w as u64);
            let mean_gap_ps = 1e12 / p.rate_per_s;
            let mut t = p.start_ps as f64;
            loop {
                use rand::Rng as _;
                let u: f64 = rng.random();
                t += -(1.0 - u).ln() * mean_gap_ps; // exponential gaps: a Poisson process
                if t >= stop.0 as f64 || t.is_nan() {
                    break;
                }
                let v: f64 = rng.random();
                let size = ((-(1.0 - v).ln() * p.mean_bytes as f64).round() as u64).max(1);
                let id = sources.len() as u32;
                // A short flow runs until it sent its bytes (or the run ends), whatever `stop` is.
                let tx = RateSource::new(id, src, dst, setup.frame_bytes, Time(t as u64), end, Some(size));
                let rp = setup.scheme.rp(line, line);
                let srng = stream(seed, Stream::L2Source, id as u64);
                sources.push(Source {
                    tx,
                    rp,
                    rng: srng,
                    nic,
                    line,
                    armed_timer: None,
                    waiting: false,
                    at_warmup: None,
                    origin: Some(w as u32),
                    latency_ps,
                });
            }
        }
        let cp_ports: Vec<PortId> = match &setup.cps {
            Some(refs) => refs
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let field = format!("l2.cps[{i}]");
                    let a =
                        net.node_id(&r.from).ok_or_else(|| invalid(&field, format!("unknown node {:?}", r.from)))?;
                    let b = net.node_id(&r.to).ok_or_else(|| invalid(&field, format!("unknown node {:?}", r.to)))?;
                    let p = net
                        .port_between(a, b)
                        .ok_or_else(|| invalid(&field, format!("no link {} -> {}", r.from, r.to)))?;
                    if net.nodes[a as usize].kind == NodeKind::Host {
                        return Err(invalid(
                            &field,
                            format!(
                                "{} -> {} is a host port; congestion points sit on switch egress ports",
                                r.from, r.to
                            ),
                        ));
                    }
                    if refs[..i].contains(r) {
                        return Err(invalid(&field, format!("{} -> {} has a congestion point already", r.from, r.to)));
                    }
                    Ok(p)
                })
                .collect::<Result<_>>()?,
            None => default_monitored
                .iter()
                .copied()
                .filter(|&p| net.nodes[net.ports[p as usize].from as usize].kind == NodeKind::Switch)
                .collect(),
        };
        if cp_ports.is_empty() {
            return Err(invalid("l2.cps", "no congestion point: name at least one switch egress port"));
        }
        let mut cp_of_port = vec![None; net.ports.len()];
        let mut cps = Vec::new();
        for &p in &cp_ports {
            let port = &net.ports[p as usize];
            let label = format!("{}->{}", net.nodes[port.from as usize].name, net.nodes[port.to as usize].name);
            let cap = match port.capacity() {
                Amount::Bytes(b) => b,
                Amount::Packets(n) => n.saturating_mul(setup.frame_bytes as u64),
            };
            let (name, target) = setup.scheme.target_queue();
            if target > cap {
                return Err(invalid(
                    format!("l2.scheme.{name}"),
                    format!("{target} B is larger than the buffer of congestion point {label} ({cap} B); allowed {name} <= buffer"),
                ));
            }
            cp_of_port[p as usize] = Some(cps.len() as u32);
            let cp = setup.scheme.cp(p as CpId, port.rate);
            let rng = stream(seed, Stream::L2Cp, p as u64);
            cps.push(CpState { port: p, cp, rng, samples: 0, feedback: 0, at_warmup: (0, 0) });
        }
        let mut w = L2World {
            setup: setup.clone(),
            sources,
            cp_of_port,
            cps,
            pending: Vec::new(),
            free: Vec::new(),
            out: Vec::new(),
            events: Vec::new(),
            end,
            rates_t: Vec::new(),
            rates_src: Vec::new(),
            rates_bps: Vec::new(),
            nic_turns: Default::default(),
        };
        for i in 0..w.sources.len() {
            if let Some(t) = w.sources[i].tx.arm_start() {
                w.events.push((t, L2Ev::Send(i as u32)));
            }
        }
        w.events.push((Time::ZERO, L2Ev::Sample));
        Ok(w)
    }

    pub fn sources(&self) -> usize {
        self.sources.len()
    }

    /// Source i's NIC: frames are stamped with their transmission start there.
    pub fn nic(&self, i: u32) -> PortId {
        self.sources[i as usize].nic
    }

    /// Source i's armed frame departs at `now` (its `Send` event is the current one, and it is
    /// not waiting for its NIC).
    pub fn send_due(&self, i: u32, now: Time) -> bool {
        let s = &self.sources[i as usize];
        !s.waiting && s.tx.due(now)
    }

    /// Sources wait for room in NIC `nic` (host backpressure, see `NicTurns`).
    pub fn nic_waiters(&self, nic: PortId) -> usize {
        self.nic_turns.get(&nic).map_or(0, |q| q.sources.len())
    }

    /// Source i's NIC has no room now (or others wait for it): it waits for its turn. Returns
    /// true if a wake-up of the NIC must be scheduled (`L2Ev::NicRoom`).
    pub fn wait_for_nic(&mut self, i: u32) -> bool {
        let s = &mut self.sources[i as usize];
        s.waiting = true;
        let q = self.nic_turns.entry(s.nic).or_default();
        q.sources.push_back(i);
        !std::mem::replace(&mut q.armed, true)
    }

    /// NIC `nic` has room again at `now` (the wake-up ran): the next waiting source, if any, is
    /// made to depart now, and returned (the caller then handles its `Send`).
    pub fn next_turn(&mut self, nic: PortId, now: Time) -> Option<u32> {
        let q = self.nic_turns.get_mut(&nic)?;
        while let Some(i) = q.sources.pop_front() {
            let s = &mut self.sources[i as usize];
            s.waiting = false;
            if s.tx.depart_now(now) {
                return Some(i);
            }
        }
        None
    }

    /// Whether a TCP flow takes NIC `nic`'s next turn when flows and sources both wait; each
    /// call takes that turn (the next is the other family's).
    pub fn tcp_takes_turn(&mut self, nic: PortId) -> bool {
        self.nic_turns.get_mut(&nic).is_some_and(|q| {
            q.tcp_next = !q.tcp_next;
            !q.tcp_next
        })
    }

    /// Whether NIC `nic`'s wake-up is pending (None: no source ever waited for it).
    pub fn nic_armed(&self, nic: PortId) -> Option<bool> {
        self.nic_turns.get(&nic).map(|q| q.armed)
    }

    /// Whether NIC `nic`'s wake-up is pending; `false` marks it as run.
    pub fn set_nic_armed(&mut self, nic: PortId, armed: bool) {
        if let Some(q) = self.nic_turns.get_mut(&nic) {
            q.armed = armed;
        }
    }

    /// After the RP changed (or may have), re-pace the next frame and arm the RP timer.
    fn after_rp(&mut self, i: usize, now: Time) {
        let s = &mut self.sources[i];
        if let Some(t) = s.tx.repace(now, s.rp.rate()) {
            self.events.push((t, L2Ev::Send(i as u32)));
        }
        let timer = s.rp.next_timer();
        if timer.is_some() && timer != s.armed_timer {
            s.armed_timer = timer;
            if let Some(t) = timer {
                self.events.push((t.max(now), L2Ev::Timer(i as u32)));
            }
        }
    }

    pub fn handle(&mut self, ev: L2Ev, now: Time) -> Result<()> {
        match ev {
            L2Ev::Send(i) => {
                let s = &mut self.sources[i as usize];
                if !s.tx.due(now) || s.waiting {
                    // re-paced: a later (or earlier) event took its place; or the source waits
                    // for its NIC (a re-paced event while it waits must not send past the
                    // host backpressure: its turn sends the frame, `next_turn`)
                    return Ok(());
                }
                let rate = s.rp.rate();
                let (pkt, next) = s.tx.send(now, rate);
                s.rp.on_tx(now, pkt.size, &mut s.rng);
                self.out.push((pkt.src, pkt));
                if let Some(t) = next {
                    self.events.push((t, L2Ev::Send(i)));
                }
                // Only QCN's byte counter can change the rate or the timer on a transmission.
                if s.rp.rate() != rate || s.rp.next_timer() != s.armed_timer {
                    self.after_rp(i as usize, now);
                }
            }
            L2Ev::Timer(i) => {
                let s = &mut self.sources[i as usize];
                if s.armed_timer == Some(now) {
                    s.armed_timer = None;
                }
                s.rp.on_timer(now, &mut s.rng);
                self.after_rp(i as usize, now);
            }
            L2Ev::Emit(k) => {
                let (node, pkt) = self.pending[k as usize].take().expect("pending feedback");
                self.free.push(k);
                self.out.push((node, pkt));
            }
            L2Ev::NicRoom(_) => {} // the simulation's (it reads the NIC's port): `World::nic_turns`
            L2Ev::Sample => {
                let t = now.secs_f64();
                // Listed sources only (thousands of short flows would fill the series), while they
                // send: from their start (a source armed for a later start has no rate yet).
                for (i, s) in self.sources.iter().enumerate() {
                    if s.tx.active() && s.origin.is_none() && now >= s.tx.start {
                        self.rates_t.push(t);
                        self.rates_src.push(i as u64);
                        self.rates_bps.push(s.rp.rate_bps());
                    }
                }
                let next = now + Time(self.setup.rate_interval_ps);
                if next <= self.end {
                    self.events.push((next, L2Ev::Sample));
                }
            }
        }
        Ok(())
    }

    /// A frame arrived at port `pid` and its queue dropped it: sampled as an arrival (queue
    /// `q_bytes` as the drop left it) by a scheme whose CP samples those too
    /// ([`L2Spec::samples_dropped_arrivals`]).
    pub fn on_dropped_arrival(&mut self, pid: PortId, switch: NodeId, pkt: &Packet, q_bytes: u64, now: Time) {
        if self.setup.scheme.samples_dropped_arrivals() {
            self.on_enqueue(pid, switch, pkt, q_bytes, now);
        }
    }

    /// A packet was enqueued at port `pid` (`q_bytes` its queue including the packet); a CP
    /// there samples L2 frames and may send feedback from `switch` to the frame's source.
    pub fn on_enqueue(&mut self, pid: PortId, switch: NodeId, pkt: &Packet, q_bytes: u64, now: Time) {
        if pkt.kind != Kind::Frame {
            return;
        }
        let Some(c) = self.cp_of_port.get(pid as usize).copied().flatten() else { return };
        let cs = &mut self.cps[c as usize];
        let before = cs.cp.samples_taken();
        let fb = cs.cp.on_arrival(now, q_bytes, pkt.size, &mut cs.rng);
        cs.samples += cs.cp.samples_taken() - before;
        let Some(Feedback { cpid, signal }) = fb else { return };
        cs.feedback += 1;
        let latency = match &self.setup.feedback_latency {
            LatencySpec::Fixed { ps } => *ps,
            LatencySpec::PerSource { .. } => self.sources.get(pkt.flow as usize).map_or(0, |s| s.latency_ps),
            LatencySpec::Uniform { lo_ps, hi_ps } => {
                use rand::Rng as _;
                cs.rng.random_range(*lo_ps..=*hi_ps)
            }
        };
        let fbpkt = Packet {
            kind: Kind::Feedback,
            flow: pkt.flow,
            src: switch,
            dst: pkt.src,
            size: self.setup.feedback_bytes,
            seq: self.setup.scheme.encode(&signal), // the CPID travels in `aux`
            ect: false,
            ce: false,
            ece: false,
            ts: pkt.ts,
            aux: cpid,
        };
        if latency == 0 {
            self.out.push((switch, fbpkt));
        } else {
            let k = match self.free.pop() {
                Some(k) => {
                    self.pending[k as usize] = Some((switch, fbpkt));
                    k
                }
                None => {
                    self.pending.push(Some((switch, fbpkt)));
                    (self.pending.len() - 1) as u32
                }
            };
            self.events.push((now + Time(latency), L2Ev::Emit(k)));
        }
    }

    /// A frame or feedback frame reached its destination host.
    pub fn on_deliver(&mut self, pkt: &Packet, now: Time) -> Result<()> {
        let i = pkt.flow as usize;
        match pkt.kind {
            Kind::Frame => self.sources[i].tx.on_delivered(pkt, now),
            Kind::Feedback => {
                let signal = self.setup.scheme.decode(pkt.seq);
                let s = &mut self.sources[i];
                s.tx.on_feedback(pkt.ts, now);
                s.rp.on_feedback(now, &Feedback { cpid: pkt.aux, signal }, &mut s.rng)?;
                self.after_rp(i, now);
            }
            _ => return Err(Error::Run(format!("packet of kind {:?} delivered to the L2 family", pkt.kind))),
        }
        Ok(())
    }

    /// A queue dropped an L2 frame (feedback frames lost are counted by the ports only).
    pub fn on_drop(&mut self, pkt: &Packet) {
        if pkt.kind == Kind::Frame {
            if let Some(s) = self.sources.get_mut(pkt.flow as usize) {
                s.tx.stats.dropped_frames += 1;
            }
        }
    }

    pub fn on_warmup(&mut self) {
        for s in &mut self.sources {
            s.at_warmup = Some(s.tx.stats);
        }
        for c in &mut self.cps {
            c.at_warmup = (c.samples, c.feedback);
        }
    }

    /// Rows of the rate series so far (for memory accounting).
    pub fn rate_rows(&self) -> usize {
        self.rates_t.len()
    }

    /// The `sources`, `rates` and `cps` tables. `span_s` is the time after warm-up.
    pub fn tables(&mut self, net: &Network, now: Time, span_s: f64) -> (Table, Table, Table) {
        let name = |n: NodeId| net.nodes[n as usize].name.clone();
        let mut c = SourceCols::default();
        for (i, s) in self.sources.iter().enumerate() {
            let whole = s.tx.stats;
            let post = s.at_warmup.map_or(RateStats::default(), |w| whole.minus(w));
            c.source.push(i as u64);
            c.label.push(format!("{}->{}", name(s.tx.src), name(s.tx.dst)));
            c.src.push(name(s.tx.src));
            c.dst.push(name(s.tx.dst));
            c.scheme.push(s.rp.name().to_string());
            c.start_s.push(s.tx.start.secs_f64());
            c.stop_s.push(s.tx.stop.secs_f64());
            c.size_bytes.push(s.tx.size_bytes.map_or(f64::NAN, |b| b as f64));
            c.line_rate_bps.push(s.line.bps() as f64);
            c.rate_final_bps.push(s.rp.rate_bps());
            c.sent_frames.push(post.sent_frames);
            c.sent_bytes.push(post.sent_bytes);
            c.delivered_bytes.push(post.delivered_bytes);
            c.dropped_frames.push(post.dropped_frames);
            c.goodput_bps.push(if span_s > 0.0 && s.at_warmup.is_some() {
                post.delivered_bytes as f64 * 8.0 / span_s
            } else {
                f64::NAN
            });
            c.feedback_frames.push(post.feedback_frames);
            c.sent_frames_whole_run.push(whole.sent_frames);
            c.sent_bytes_whole_run.push(whole.sent_bytes);
            c.delivered_bytes_whole_run.push(whole.delivered_bytes);
            c.dropped_frames_whole_run.push(whole.dropped_frames);
            c.feedback_frames_whole_run.push(whole.feedback_frames);
            let n = whole.feedback_frames;
            c.loop_delay_mean_s.push(if n > 0 { whole.loop_delay_sum_ps as f64 / n as f64 / 1e12 } else { f64::NAN });
            c.loop_delay_min_s.push(s.tx.loop_delay_min_ps.map_or(f64::NAN, |v| v as f64 / 1e12));
            c.loop_delay_max_s.push(s.tx.loop_delay_max_ps.map_or(f64::NAN, |v| v as f64 / 1e12));
            c.fct_s.push(s.tx.finished_at.map_or(f64::NAN, |t| (t - s.tx.start).secs_f64()));
            c.poisson.push(s.origin.map_or(f64::NAN, |w| w as f64));
        }
        let _ = now;
        let sources = c.table();
        let rates = Table::new("rates")
            .col("t_s", Column::F64(std::mem::take(&mut self.rates_t)))
            .col("source", Column::U64(std::mem::take(&mut self.rates_src)))
            .col("rate_bps", Column::F64(std::mem::take(&mut self.rates_bps)));
        let mut cc = CpCols::default();
        for cs in &self.cps {
            let p = &net.ports[cs.port as usize];
            cc.port.push(cs.port as u64);
            cc.label.push(format!("{}->{}", name(p.from), name(p.to)));
            cc.samples.push(cs.samples - cs.at_warmup.0);
            cc.feedback_frames.push(cs.feedback - cs.at_warmup.1);
            cc.samples_whole_run.push(cs.samples);
            cc.feedback_frames_whole_run.push(cs.feedback);
        }
        (sources, rates, cc.table())
    }

    /// The three tables with their columns and no rows (a scenario without L2 sources).
    pub fn empty_tables() -> (Table, Table, Table) {
        let rates = Table::new("rates")
            .col("t_s", Column::F64(vec![]))
            .col("source", Column::U64(vec![]))
            .col("rate_bps", Column::F64(vec![]));
        (SourceCols::default().table(), rates, CpCols::default().table())
    }
}

#[derive(Default)]
struct CpCols {
    port: Vec<u64>,
    label: Vec<String>,
    samples: Vec<u64>,
    feedback_frames: Vec<u64>,
    samples_whole_run: Vec<u64>,
    feedback_frames_whole_run: Vec<u64>,
}

impl CpCols {
    fn table(self) -> Table {
        Table::new("cps")
            .col("port", Column::U64(self.port))
            .col("label", Column::Str(self.label.into()))
            .col("samples", Column::U64(self.samples))
            .col("feedback_frames", Column::U64(self.feedback_frames))
            .col("samples_whole_run", Column::U64(self.samples_whole_run))
            .col("feedback_frames_whole_run", Column::U64(self.feedback_frames_whole_run))
    }
}

#[derive(Default)]
struct SourceCols {
    source: Vec<u64>,
    label: Vec<String>,
    src: Vec<String>,
    dst: Vec<String>,
    scheme: Vec<String>,
    start_s: Vec<f64>,
    stop_s: Vec<f64>,
    size_bytes: Vec<f64>,
    line_rate_bps: Vec<f64>,
    rate_final_bps: Vec<f64>,
    sent_frames: Vec<u64>,
    sent_bytes: Vec<u64>,
    delivered_bytes: Vec<u64>,
    dropped_frames: Vec<u64>,
    goodput_bps: Vec<f64>,
    feedback_frames: Vec<u64>,
    sent_frames_whole_run: Vec<u64>,
    sent_bytes_whole_run: Vec<u64>,
    delivered_bytes_whole_run: Vec<u64>,
    dropped_frames_whole_run: Vec<u64>,
    feedback_frames_whole_run: Vec<u64>,
    loop_delay_mean_s: Vec<f64>,
    loop_delay_min_s: Vec<f64>,
    loop_delay_max_s: Vec<f64>,
    fct_s: Vec<f64>,
    poisson: Vec<f64>,
}

impl SourceCols {
    fn table(self) -> Table {
        Table::new("sources")
            .col("source", Column::U64(self.source))
            .col("label", Column::Str(self.label.into()))
            .col("src", Column::Str(self.src.into()))
            .col("dst", Column::Str(self.dst.into()))
            .col("scheme", Column::Str(self.scheme.into()))
            .col("start_s", Column::F64(self.start_s))
            .col("stop_s", Column::F64(self.stop_s))
            .col("size_bytes", Column::F64(self.size_bytes))
            .col("line_rate_bps", Column::F64(self.line_rate_bps))
            .col("rate_final_bps", Column::F64(self.rate_final_bps))
            .col("sent_frames", Column::U64(self.sent_frames))
            .col("sent_bytes", Column::U64(self.sent_bytes))
            .col("delivered_bytes", Column::U64(self.delivered_bytes))
            .col("dropped_frames", Column::U64(self.dropped_frames))
            .col("goodput_bps", Column::F64(self.goodput_bps))
            .col("feedback_frames", Column::U64(self.feedback_frames))
            .col("sent_frames_whole_run", Column::U64(self.sent_frames_whole_run))
            .col("sent_bytes_whole_run", Column::U64(self.sent_bytes_whole_run))
            .col("delivered_bytes_whole_run", Column::U64(self.delivered_bytes_whole_run))
            .col("dropped_frames_whole_run", Column::U64(self.dropped_frames_whole_run))
            .col("feedback_frames_whole_run", Column::U64(self.feedback_frames_whole_run))
            .col("loop_delay_mean_s", Column::F64(self.loop_delay_mean_s))
            .col("loop_delay_min_s", Column::F64(self.loop_delay_min_s))
            .col("loop_delay_max_s", Column::F64(self.loop_delay_max_s))
            .col("fct_s", Column::F64(self.fct_s))
            .col("poisson", Column::F64(self.poisson))
    }
}
