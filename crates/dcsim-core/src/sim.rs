//! The world and its run loop.

use crate::error::{invalid, Error, Result};
use crate::metrics::{hist_quantile, Column, CwndProbe, QueueProbe, Table, ThroughputProbe};
use crate::net::{topology, Network, Port, PortId};
use crate::packet::{FlowId, Kind, NodeId, Packet};
use crate::scenario::{BaseRttSpec, NodeKind, ProtocolSpec, Spec, TopologySpec};
use crate::sched::EventQueue;
use crate::transport::tcp::{DelayedAck, Receiver, Sender, SenderStats, WindowAreas};
use crate::units::{fmt_ps, Time};

enum Ev {
    /// The head packet of a port's pipe reaches the next node.
    Arrive(PortId),
    FlowStart(FlowId),
    Rto(FlowId),
    /// The sender's host NIC has room again (host backpressure).
    NicWake(FlowId),
    DelAck(FlowId),
    Warmup,
    SampleQueue,
    SampleThroughput,
    SampleCwnd,
}

struct Flow {
    sender: Sender,
    /// The sender host's egress port towards the receiver.
    nic: PortId,
    wake_pending: bool,
    receiver: Receiver,
    /// Counters at the warm-up instant (None before it): post-warm-up = now - these.
    at_warmup: Option<FlowSnapshot>,
    protocol: &'static str,
    src_name: String,
    dst_name: String,
}

/// A flow's counters at the warm-up instant.
#[derive(Clone, Copy, Default)]
struct FlowSnapshot {
    sender: SenderStats,
    areas: WindowAreas,
    delivered_bytes: u64,
    ce_received: u64,
}

impl Flow {
    fn snapshot(&self) -> FlowSnapshot {
        FlowSnapshot {
            sender: self.sender.stats,
            areas: self.sender.areas,
            delivered_bytes: self.receiver.delivered_bytes,
            ce_received: self.receiver.ce_received,
        }
    }
}

/// Bytes per row of the sampled series (every column is 8 bytes wide).
const QUEUE_ROW_BYTES: u128 = 32; // t_s, port, q_pkt, q_bytes
const THROUGHPUT_ROW_BYTES: u128 = 24; // t_s, flow, goodput
const CWND_ROW_BYTES: u128 = 40; // t_s, flow, cwnd, alpha, srtt

/// Check, before anything is allocated, that the run fits in `metrics.max_memory_bytes`: the
/// world (nodes, ports, flows) plus every sampled series counted twice (the engine's columns and
/// the front end's copy). Row counts are upper bounds (a flow is sampled only while it runs);
/// all arithmetic is in u128 (10^18 ps x 10^6 entities cannot overflow it). The error names the
/// sampling interval that dominates and how long it must be.
pub(crate) fn check_memory(spec: &Spec) -> Result<()> {
    let (nodes, ports) = spec.topology.size();
    let monitored = match (&spec.metrics.monitor, &spec.topology) {
        (Some(m), _) => m.len() as u64,
        (None, TopologySpec::Dumbbell { .. }) => 1,
        (None, TopologySpec::Graph { nodes, links }) => {
            let switch: std::collections::HashSet<&str> =
                nodes.iter().filter(|n| n.kind == NodeKind::Switch).map(|n| n.name.as_str()).collect();
            links.iter().map(|l| switch.contains(l.a.as_str()) as u64 + switch.contains(l.b.as_str()) as u64).sum()
        }
    };
    let flows = spec.flows.len() as u64;
    let traced = spec.metrics.trace_flows.as_ref().map_or(flows, |t| t.len() as u64);
    let world = nodes as u128 * (std::mem::size_of::<crate::net::Node>() as u128 + 64)
        + ports as u128 * std::mem::size_of::<Port>() as u128
        + flows as u128 * (std::mem::size_of::<Flow>() as u128 + 64);
    let d = spec.duration_ps as u128;
    let m = &spec.metrics;
    let series = [
        ("metrics.queue_interval", m.queue_interval_ps as u128, monitored as u128, QUEUE_ROW_BYTES),
        ("metrics.throughput_interval", m.throughput_interval_ps as u128, traced as u128, THROUGHPUT_ROW_BYTES),
        ("metrics.cwnd_interval", m.cwnd_interval_ps as u128, traced as u128, CWND_ROW_BYTES),
    ];
    let bytes = |&(_, iv, n, rb): &(&str, u128, u128, u128)| if n == 0 { 0 } else { (d / iv + 1) * n * rb };
    let total: u128 = world + 2 * series.iter().map(bytes).sum::<u128>();
    let limit = m.max_memory_bytes as u128;
    if total <= limit {
        return Ok(());
    }
    let worst = series.iter().max_by_key(|s| bytes(s)).expect("three series");
    let (field, iv, n, rb) = *worst;
    let others: u128 = series.iter().filter(|s| s.0 != field).map(bytes).sum();
    let mb = |b: u128| format!("{:.1} MB", b as f64 / 1e6);
    let head = format!(
        "sampling every {} records up to {} rows ({}) for {n} {}; the run would need {} in all, more than \
         metrics.max_memory = {}",
        fmt_ps(iv),
        d / iv + 1,
        mb(bytes(worst)),
        if field == "metrics.queue_interval" { "monitored ports" } else { "traced flows" },
        mb(total),
        mb(limit)
    );
    // Rows of this series that still fit: (limit - world - 2 others) / (2 n rb).
    let room = limit.saturating_sub(world + 2 * others) / (2 * n * rb);
    let advice = if room >= 2 {
        // Shown with 5 significant digits: round up by 1e-4 so the value shown is enough.
        let need = d.div_ceil(room - 1) * 10_001 / 10_000 + 1;
        format!("lengthen {field} to at least {}, or raise metrics.max_memory", fmt_ps(need))
    } else {
        "raise metrics.max_memory (or monitor fewer ports / trace fewer flows: metrics.trace_flows)".to_string()
    };
    Err(invalid(field, format!("{head}; {advice}")))
}

/// Whole-run packet accounting (data and ACK packets alike).
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub events: u64,
    /// Packets hosts handed to their NICs.
    pub sent_pkts: u64,
    /// Packets that reached their destination host.
    pub delivered_pkts: u64,
    pub dropped_pkts: u64,
}

pub struct Sim {
    spec: Spec,
    now: Time,
    end: Time,
    warmup: Time,
    events: EventQueue<Ev>,
    net: Network,
    flows: Vec<Flow>,
    counters: Counters,
    out: Vec<Packet>,
    queue_probe: QueueProbe,
    tp_probe: ThroughputProbe,
    /// Flows whose goodput and window are traced (metrics.trace_flows; all by default).
    traced: Vec<FlowId>,
    cwnd_probe: CwndProbe,
    /// Events handled at the current instant (a run that stops advancing is a bug: see `run_until`).
    same_instant: u64,
    stall_limit: u64,
    /// The series were moved out by `results()`.
    taken: bool,
}

impl Sim {
    /// Validate the spec and build the world; nothing runs yet.
    pub fn new(spec: Spec) -> Result<Sim> {
        spec.check()?;
        let mut net = topology::build(&spec)?;
        for &p in &net.monitored {
            net.ports[p as usize].keep_histogram();
        }
        let mut flows = Vec::with_capacity(spec.flows.len());
        for (i, f) in spec.flows.iter().enumerate() {
            let field = |n: &str| format!("flows[{i}].{n}");
            let src = net.node_id(&f.src).ok_or_else(|| invalid(field("src"), format!("unknown node {:?}", f.src)))?;
            let dst = net.node_id(&f.dst).ok_or_else(|| invalid(field("dst"), format!("unknown node {:?}", f.dst)))?;
            for (n, id) in [("src", src), ("dst", dst)] {
                if net.nodes[id as usize].kind != NodeKind::Host {
                    return Err(invalid(field(n), "flows run between hosts, not switches"));
                }
            }
            if net.route(src, dst).is_none() || net.route(dst, src).is_none() {
                return Err(invalid(field("dst"), format!("no path between {:?} and {:?}", f.src, f.dst)));
            }
            let id = i as FlowId;
            let sender = match f.protocol {
                ProtocolSpec::Dx { r0: BaseRttSpec::Path } => {
                    let rtt = path_rtt(&net, src, dst, spec.packet_bytes, spec.header_bytes);
                    let resolved = crate::scenario::FlowSpec {
                        protocol: ProtocolSpec::Dx { r0: BaseRttSpec::FixedPs(rtt.0) },
                        ..f.clone()
                    };
                    Sender::new(id, src, dst, &resolved, spec.packet_bytes, spec.header_bytes)
                }
                _ => Sender::new(id, src, dst, f, spec.packet_bytes, spec.header_bytes),
            };
            let delack = f.delayed_ack.as_ref().map(|d| DelayedAck::new(d.segments, Time(d.timeout_ps)));
            let receiver = Receiver::new(id, dst, src, sender.seg, spec.header_bytes, delack);
            let nic = net.route(src, dst).expect("checked above");
            flows.push(Flow {
                sender,
                nic,
                wake_pending: false,
                receiver,
                at_warmup: None,
                protocol: f.protocol.name(),
                src_name: f.src.clone(),
                dst_name: f.dst.clone(),
            });
        }
        let traced: Vec<FlowId> = match &spec.metrics.trace_flows {
            None => (0..flows.len() as FlowId).collect(),
            Some(ids) => ids.iter().map(|&i| i as FlowId).collect(),
        };
        let mut sim = Sim {
            now: Time::ZERO,
            end: Time(spec.duration_ps),
            warmup: Time(spec.warmup_ps),
            events: EventQueue::new(),
            queue_probe: QueueProbe::default(),
            tp_probe: ThroughputProbe { last_bytes: vec![0; traced.len()], ..Default::default() },
            traced,
            cwnd_probe: CwndProbe::default(),
            net,
            flows,
            counters: Counters::default(),
            out: Vec::new(),
            same_instant: 0,
            stall_limit: 0,
            taken: false,
            spec,
        };
        // No run needs more events at one instant than a few per flow and port; far more means
        // the engine stopped advancing (a bug), and the run stops with an error instead of hanging.
        sim.stall_limit = 10_000_000 + 100 * (sim.flows.len() as u64 + sim.net.ports.len() as u64);
        // Warm-up first: everything at t >= warmup, including events at the warm-up instant
        // itself, counts as after warm-up.
        sim.events.push(sim.warmup, Ev::Warmup);
        for (i, f) in sim.flows.iter().enumerate() {
            sim.events.push(f.sender.start, Ev::FlowStart(i as FlowId));
        }
        // Only series that can record something are sampled.
        if !sim.net.monitored.is_empty() {
            sim.events.push(Time::ZERO, Ev::SampleQueue);
        }
        sim.events.push(Time(sim.spec.metrics.throughput_interval_ps), Ev::SampleThroughput);
        sim.events.push(Time::ZERO, Ev::SampleCwnd);
        Ok(sim)
    }

    pub fn from_json(json: &str) -> Result<Sim> {
        Sim::new(Spec::from_json(json)?)
    }

    pub fn now(&self) -> Time {
        self.now
    }
    pub fn end(&self) -> Time {
        self.end
    }
    pub fn spec(&self) -> &Spec {
        &self.spec
    }
    pub fn network(&self) -> &Network {
        &self.net
    }
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Run to the end.
    pub fn run(&mut self) -> Result<()> {
        self.run_until(self.end)
    }

    /// Handle every event up to and including `t` (capped at the end of the run).
    pub fn run_until(&mut self, t: Time) -> Result<()> {
        while !self.run_until_budget(t, u64::MAX)? {}
        Ok(())
    }

    /// Handle events up to and including `t` (capped at the end of the run), but at most
    /// `max_events` of them, so that a front end gets control back often (Ctrl-C, progress).
    /// Returns true when `t` was reached. Errors if the engine stops advancing in time.
    pub fn run_until_budget(&mut self, t: Time, max_events: u64) -> Result<bool> {
        if self.taken {
            return Err(Error::Run("the results were already taken; build a new simulation to run again".into()));
        }
        let target = t.min(self.end);
        if target < self.now {
            return Err(Error::Run(format!("cannot run back in time: now = {} ps, asked {} ps", self.now.0, target.0)));
        }
        let mut budget = max_events;
        while let Some(te) = self.events.peek_time() {
            if te > target {
                break;
            }
            if budget == 0 {
                self.counters.events = self.events.popped();
                return Ok(false);
            }
            budget -= 1;
            let (te, ev) = self.events.pop().expect("peeked");
            if te < self.now {
                return Err(Error::Run(format!("time went back from {} ps to {} ps", self.now.0, te.0)));
            }
            if te == self.now {
                self.same_instant += 1;
                if self.same_instant > self.stall_limit {
                    return Err(Error::Run(format!(
                        "no progress: {} events at t = {} ps without time advancing; this is a bug in dcsim, \
                         please report it with the scenario",
                        self.same_instant, te.0
                    )));
                }
            } else {
                self.same_instant = 0;
            }
            self.now = te;
            self.handle(ev);
        }
        self.now = target;
        self.counters.events = self.events.popped();
        Ok(true)
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Arrive(pid) => {
                let port = &mut self.net.ports[pid as usize];
                let (node, pkt) = (port.to, port.pop_arrival().expect("arrival event without packet"));
                if let Some(t) = port.next_arrival() {
                    self.events.push(t, Ev::Arrive(pid));
                }
                self.on_arrive(node, pkt);
            }
            Ev::FlowStart(f) => {
                self.set_budget(f);
                let s = &mut self.flows[f as usize].sender;
                s.start(self.now, &mut self.out);
                self.after_transport(f);
            }
            Ev::NicWake(f) => {
                self.flows[f as usize].wake_pending = false;
                self.set_budget(f);
                let s = &mut self.flows[f as usize].sender;
                if s.started && !s.done() {
                    s.send_window(self.now, &mut self.out);
                }
                self.after_transport(f);
            }
            Ev::Rto(f) => {
                self.set_budget(f);
                let s = &mut self.flows[f as usize].sender;
                s.rto_event_at = None;
                match s.rto_deadline {
                    Some(d) if d <= self.now => s.on_timeout(self.now, &mut self.out),
                    _ => {}
                }
                self.after_transport(f);
            }
            Ev::DelAck(f) => {
                let r = &mut self.flows[f as usize].receiver;
                if let Some(d) = &mut r.delack {
                    d.event_at = None;
                    if d.deadline.is_some_and(|dl| dl <= self.now) {
                        r.on_delack_timeout(&mut self.out);
                    }
                }
                self.after_transport(f);
            }
            Ev::Warmup => {
                for f in &mut self.flows {
                    f.sender.integrate(self.now);
                    f.at_warmup = Some(f.snapshot());
                }
                for p in &mut self.net.ports {
                    p.advance(self.now);
                    p.on_warmup();
                }
            }
            Ev::SampleQueue => self.sample_queue(),
            Ev::SampleThroughput => self.sample_throughput(),
            Ev::SampleCwnd => self.sample_cwnd(),
        }
    }

    /// Put a packet on `node`'s egress port towards its destination.
    fn forward(&mut self, node: NodeId, pkt: Packet) {
        let Some(pid) = self.net.route(node, pkt.dst) else {
            // Routes were checked for every flow at build time; count it as a drop anyway.
            self.counters.dropped_pkts += 1;
            return;
        };
        let port = &mut self.net.ports[pid as usize];
        let was_empty = port.in_pipe() == 0;
        match port.enqueue(pkt, self.now) {
            Some(arrival) if was_empty => self.events.push(arrival, Ev::Arrive(pid)),
            Some(_) => {}
            None => self.counters.dropped_pkts += 1,
        }
    }

    fn on_arrive(&mut self, node: NodeId, pkt: Packet) {
        if node != pkt.dst {
            self.forward(node, pkt);
            return;
        }
        self.counters.delivered_pkts += 1;
        let f = pkt.flow;
        if pkt.kind == Kind::Ack {
            self.set_budget(f);
        }
        let flow = &mut self.flows[f as usize];
        match pkt.kind {
            Kind::Data => flow.receiver.on_data(&pkt, self.now, &mut self.out),
            Kind::Ack => flow.sender.on_ack(&pkt, self.now, &mut self.out),
        }
        self.after_transport(f);
    }

    /// How many new segments flow `f`'s host NIC accepts now.
    fn set_budget(&mut self, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        let nic = &mut self.net.ports[flow.nic as usize];
        nic.advance(self.now);
        flow.sender.tx_budget = self.spec.host_backlog_pkt.saturating_sub(nic.q_pkts());
    }

    /// Inject what the transport of flow `f` wants to send, and arm its timers.
    fn after_transport(&mut self, f: FlowId) {
        let mut out = std::mem::take(&mut self.out);
        let nic_ts = self.flows[f as usize].sender.cc.nic_tx_timestamps();
        for mut pkt in out.drain(..) {
            self.counters.sent_pkts += 1;
            if nic_ts && pkt.kind == Kind::Data && pkt.src == self.flows[f as usize].sender.src {
                // Hardware timestamp: when the packet's transmission starts on the sender's NIC.
                pkt.ts = self.net.ports[self.flows[f as usize].nic as usize].next_start(self.now);
            }
            self.forward(pkt.src, pkt);
        }
        self.out = out;
        let flow = &mut self.flows[f as usize];
        // A finished flow never waits for its NIC (a wake-up for it would re-arm itself forever).
        if flow.sender.blocked_on_nic && !flow.wake_pending && !flow.sender.done() {
            let nic = &self.net.ports[flow.nic as usize];
            let at = nic.time_waiting_below(self.spec.host_backlog_pkt).unwrap_or(self.now).max(self.now);
            flow.wake_pending = true;
            self.events.push(at, Ev::NicWake(f));
        }
        let s = &mut flow.sender;
        if let (Some(d), None) = (s.rto_deadline, s.rto_event_at) {
            s.rto_event_at = Some(d);
            self.events.push(d, Ev::Rto(f));
        }
        if let Some(d) = &mut flow.receiver.delack {
            if let (Some(dl), None) = (d.deadline, d.event_at) {
                d.event_at = Some(dl);
                self.events.push(dl, Ev::DelAck(f));
            }
        }
    }

    fn sample_queue(&mut self) {
        for &pid in &self.net.monitored {
            let p = &mut self.net.ports[pid as usize];
            p.advance(self.now);
            self.queue_probe.record(self.now, pid, p.q_pkts(), p.q_bytes());
        }
        let next = self.now + Time(self.spec.metrics.queue_interval_ps);
        if next <= self.end {
            self.events.push(next, Ev::SampleQueue);
        }
    }

    fn sample_throughput(&mut self) {
        let dt = self.spec.metrics.throughput_interval_ps as f64 / Time::PS_PER_S as f64;
        let t = self.now.secs_f64();
        for (k, &i) in self.traced.iter().enumerate() {
            let b = self.flows[i as usize].receiver.delivered_bytes;
            let p = &mut self.tp_probe;
            p.t_s.push(t);
            p.flow.push(i as u64);
            p.rate_bps.push((b - p.last_bytes[k]) as f64 * 8.0 / dt);
            p.last_bytes[k] = b;
        }
        let next = self.now + Time(self.spec.metrics.throughput_interval_ps);
        if next <= self.end {
            self.events.push(next, Ev::SampleThroughput);
        }
    }

    fn sample_cwnd(&mut self) {
        let t = self.now.secs_f64();
        for &i in &self.traced {
            let s = &self.flows[i as usize].sender;
            if !s.started || s.done() {
                continue;
            }
            let c = &mut self.cwnd_probe;
            c.t_s.push(t);
            c.flow.push(i as u64);
            c.cwnd_pkt.push(s.cwnd);
            c.alpha.push(s.cc.alpha());
            c.srtt_s.push(s.srtt.map_or(f64::NAN, |x| x.secs_f64()));
        }
        let next = self.now + Time(self.spec.metrics.cwnd_interval_ps);
        if next <= self.end {
            self.events.push(next, Ev::SampleCwnd);
        }
    }

    /// Packets inside the network now: queued, on a wire, or propagating.
    pub fn in_flight(&self) -> u64 {
        self.net.ports.iter().map(|p| p.in_pipe()).sum()
    }

    /// Check the engine's invariants now: packet conservation (sent = delivered + dropped + in
    /// flight), every queue's byte count equals the sum of its packets, time within the run.
    pub fn check_invariants(&mut self) -> Result<()> {
        for p in &mut self.net.ports {
            p.advance(self.now);
        }
        let c = self.counters;
        let in_flight = self.in_flight();
        if c.sent_pkts != c.delivered_pkts + c.dropped_pkts + in_flight {
            return Err(Error::Run(format!(
                "packet conservation broken: sent {} != delivered {} + dropped {} + in flight {}",
                c.sent_pkts, c.delivered_pkts, c.dropped_pkts, in_flight
            )));
        }
        for (pid, p) in self.net.ports.iter().enumerate() {
            if p.unsent() > p.in_pipe() {
                return Err(Error::Run(format!(
                    "port {pid}: {} packets unsent but {} in its pipe",
                    p.unsent(),
                    p.in_pipe()
                )));
            }
            // Every pipe with packets has exactly one arrival event pending.
            let pending =
                self.events.iter().filter(|e| matches!(e, Ev::Arrive(q) if *q as usize == pid)).count() as u64;
            if pending != (p.in_pipe() > 0) as u64 {
                return Err(Error::Run(format!(
                    "port {pid}: {pending} arrival events for {} packets in the pipe",
                    p.in_pipe()
                )));
            }
            let sum = p.waiting_bytes_recount();
            if sum != p.q_bytes() {
                return Err(Error::Run(format!(
                    "port {pid}: queue byte count {} != sum of its packets {sum}",
                    p.q_bytes()
                )));
            }
        }
        if self.now > self.end {
            return Err(Error::Run(format!("now {} ps is past the end {} ps", self.now.0, self.end.0)));
        }
        Ok(())
    }

    /// All result tables (see the Python `Result` for their meaning). The sampled series are
    /// moved out, not copied, so this can be called once; the run cannot continue after it.
    pub fn results(&mut self) -> Result<Vec<Table>> {
        if self.taken {
            return Err(Error::Run("the results were already taken".into()));
        }
        self.taken = true;
        let now = self.now;
        for p in &mut self.net.ports {
            p.advance(now);
        }
        let reached_warmup = now >= self.warmup;
        let span_ps = now.0.saturating_sub(self.warmup.0);
        let span_s = span_ps as f64 / Time::PS_PER_S as f64;
        let qp = std::mem::take(&mut self.queue_probe);
        let queue = Table::new("queue")
            .col("t_s", Column::F64(qp.t_s))
            .col("port", Column::U64(qp.port))
            .col("q_pkt", Column::U64(qp.q_pkt))
            .col("q_bytes", Column::U64(qp.q_bytes));
        let tp = std::mem::take(&mut self.tp_probe);
        let throughput = Table::new("throughput")
            .col("t_s", Column::F64(tp.t_s))
            .col("flow", Column::U64(tp.flow))
            .col("goodput_bps", Column::F64(tp.rate_bps));
        let cp = std::mem::take(&mut self.cwnd_probe);
        let cwnd = Table::new("cwnd")
            .col("t_s", Column::F64(cp.t_s))
            .col("flow", Column::U64(cp.flow))
            .col("cwnd_pkt", Column::F64(cp.cwnd_pkt))
            .col("alpha", Column::F64(cp.alpha))
            .col("srtt_s", Column::F64(cp.srtt_s));

        for f in &mut self.flows {
            f.sender.integrate(now);
        }
        let mut fl = FlowCols::default();
        for (i, f) in self.flows.iter().enumerate() {
            let s = &f.sender;
            let spec = &self.spec.flows[i];
            let w = f.at_warmup.unwrap_or_else(|| f.snapshot());
            let post = s.stats - w.sender;
            fl.flow.push(i as u64);
            fl.src.push(f.src_name.clone());
            fl.dst.push(f.dst_name.clone());
            fl.protocol.push(f.protocol.to_string());
            fl.start_s.push(s.start.secs_f64());
            fl.size_bytes.push(spec.size_bytes.map_or(f64::NAN, |b| b as f64));
            let good = f.receiver.delivered_bytes - w.delivered_bytes;
            fl.delivered_bytes.push(good);
            fl.delivered_bytes_whole_run.push(f.receiver.delivered_bytes);
            fl.goodput_bps.push(if span_ps > 0 && reached_warmup { good as f64 * 8.0 / span_s } else { f64::NAN });
            fl.sent_pkts.push(post.sent_pkts);
            fl.retransmits.push(post.retransmits);
            fl.timeouts.push(post.timeouts);
            fl.fast_retransmits.push(post.fast_retransmits);
            fl.marks.push(f.receiver.ce_received - w.ce_received);
            fl.ecn_cuts.push(post.ecn_cuts);
            fl.sent_pkts_whole_run.push(s.stats.sent_pkts);
            fl.retransmits_whole_run.push(s.stats.retransmits);
            fl.timeouts_whole_run.push(s.stats.timeouts);
            fl.marks_whole_run.push(f.receiver.ce_received);
            fl.ecn_cuts_whole_run.push(s.stats.ecn_cuts);
            fl.fct_s.push(s.finished_at.map_or(f64::NAN, |t| (t - s.start).secs_f64()));
            fl.cwnd_final_pkt.push(s.cwnd);
            fl.alpha_final.push(s.cc.alpha());
            // Exact time-weighted means over the part of [warmup, now) in which the flow ran.
            let a = s.areas - w.areas;
            let per_time = |x: f64| if a.active_ps > 0 { x / a.active_ps as f64 } else { f64::NAN };
            fl.cwnd_mean_pkt.push(per_time(a.cwnd_pkt_ps));
            fl.alpha_mean.push(per_time(a.alpha_ps));
            fl.rtt_rounds.push(post.rtt_rounds);
            fl.rtt_decreases.push(post.rtt_decreases);
            let rounds = post.rtt_rounds as f64;
            fl.p_decrease.push(if post.rtt_rounds > 0 { post.rtt_decreases as f64 / rounds } else { f64::NAN });
            fl.q_delay_mean_s.push(if post.rtt_rounds > 0 {
                post.rtt_q_sum_ps as f64 / rounds / Time::PS_PER_S as f64
            } else {
                f64::NAN
            });
            fl.base_rtt_s.push(s.cc.base_rtt_s());
            fl.rtt_samples.push(post.rtt_samples);
            fl.rtt_samples_queued.push(post.rtt_samples_queued);
        }
        let flows = fl.table();

        let mut pc = PortCols::default();
        let (mut hp, mut hq, mut ht, mut hf) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (pid, p) in self.net.ports.iter().enumerate() {
            let st = p.stats_at(now);
            let q = &st.queue;
            let monitored = self.net.monitored.contains(&(pid as PortId));
            let per_span = |x: f64| if span_ps > 0 { x / span_ps as f64 } else { f64::NAN };
            pc.port.push(pid as u64);
            pc.src.push(self.net.nodes[p.from as usize].name.clone());
            pc.dst.push(self.net.nodes[p.to as usize].name.clone());
            pc.monitored.push(monitored);
            pc.rate_bps.push(p.rate.bps() as f64);
            pc.utilization.push(per_span(q.busy_ps as f64));
            pc.busy_s.push(q.busy_ps as f64 / Time::PS_PER_S as f64);
            pc.idle_s.push((span_ps - q.busy_ps.min(span_ps)) as f64 / Time::PS_PER_S as f64);
            pc.tx_bytes.push(st.after_warmup.tx_bytes);
            pc.tx_pkts.push(st.after_warmup.tx_pkts);
            pc.arrivals.push(st.after_warmup.arrivals);
            pc.drops.push(st.after_warmup.drops);
            pc.marks.push(st.after_warmup.marks);
            pc.drops_whole_run.push(st.whole_run.drops);
            pc.marks_whole_run.push(st.whole_run.marks);
            pc.q_mean_pkt.push(per_span(q.area_pkt_ps as f64));
            pc.q_mean_bytes.push(per_span(q.area_bytes_ps as f64));
            pc.q_min_pkt.push(q.min_pkt.map_or(f64::NAN, |v| v as f64));
            pc.q_max_pkt.push(q.max_pkt.map_or(f64::NAN, |v| v as f64));
            let hist: &[u64] = q.hist_ps.as_deref().unwrap_or(&[]);
            pc.q_p50_pkt.push(hist_quantile(hist, 0.5));
            pc.q_p99_pkt.push(hist_quantile(hist, 0.99));
            pc.q_empty_frac.push(if hist.is_empty() { f64::NAN } else { per_span(hist[0] as f64) });
            for (len, &t) in hist.iter().enumerate() {
                if t > 0 {
                    hp.push(pid as u64);
                    hq.push(len as u64);
                    ht.push(t as f64 / Time::PS_PER_S as f64);
                    hf.push(per_span(t as f64));
                }
            }
        }
        let ports = pc.table();
        let queue_hist = Table::new("queue_hist")
            .col("port", Column::U64(hp))
            .col("q_pkt", Column::U64(hq))
            .col("time_s", Column::F64(ht))
            .col("frac", Column::F64(hf));

        let c = self.counters;
        let counters = Table::new("counters")
            .col("events", Column::U64(vec![self.events.popped()]))
            .col("sent_pkts", Column::U64(vec![c.sent_pkts]))
            .col("delivered_pkts", Column::U64(vec![c.delivered_pkts]))
            .col("dropped_pkts", Column::U64(vec![c.dropped_pkts]))
            .col("in_flight_pkts", Column::U64(vec![self.in_flight()]))
            .col("now_s", Column::F64(vec![now.secs_f64()]));
        Ok(vec![queue, throughput, cwnd, flows, ports, queue_hist, counters])
    }
}

/// Exact base RTT of the path `src -> dst -> src`: propagation plus the serialisation of a full
/// data packet on every forward hop and of an ACK (`ack_bytes`) on every reverse hop (routes exist:
/// checked by the world builder).
fn path_rtt(net: &Network, src: NodeId, dst: NodeId, data_bytes: u32, ack_bytes: u32) -> Time {
    let mut t = Time::ZERO;
    for (from, to, bytes) in [(src, dst, data_bytes), (dst, src, ack_bytes)] {
        let mut node = from;
        while node != to {
            let Some(p) = net.route(node, to) else { break };
            let port = &net.ports[p as usize];
            t += port.delay + port.rate.tx_time(bytes);
            node = port.to;
        }
    }
    t
}

#[derive(Default)]
struct FlowCols {
    flow: Vec<u64>,
    src: Vec<String>,
    dst: Vec<String>,
    protocol: Vec<String>,
    start_s: Vec<f64>,
    size_bytes: Vec<f64>,
    delivered_bytes: Vec<u64>,
    delivered_bytes_whole_run: Vec<u64>,
    goodput_bps: Vec<f64>,
    sent_pkts: Vec<u64>,
    retransmits: Vec<u64>,
    timeouts: Vec<u64>,
    fast_retransmits: Vec<u64>,
    marks: Vec<u64>,
    ecn_cuts: Vec<u64>,
    sent_pkts_whole_run: Vec<u64>,
    retransmits_whole_run: Vec<u64>,
    timeouts_whole_run: Vec<u64>,
    marks_whole_run: Vec<u64>,
    ecn_cuts_whole_run: Vec<u64>,
    fct_s: Vec<f64>,
    cwnd_final_pkt: Vec<f64>,
    alpha_final: Vec<f64>,
    cwnd_mean_pkt: Vec<f64>,
    alpha_mean: Vec<f64>,
    rtt_rounds: Vec<u64>,
    rtt_decreases: Vec<u64>,
    p_decrease: Vec<f64>,
    q_delay_mean_s: Vec<f64>,
    base_rtt_s: Vec<f64>,
    rtt_samples: Vec<u64>,
    rtt_samples_queued: Vec<u64>,
}

impl FlowCols {
    fn table(self) -> Table {
        Table::new("flows")
            .col("flow", Column::U64(self.flow))
            .col("src", Column::Str(self.src))
            .col("dst", Column::Str(self.dst))
            .col("protocol", Column::Str(self.protocol))
            .col("start_s", Column::F64(self.start_s))
            .col("size_bytes", Column::F64(self.size_bytes))
            .col("delivered_bytes", Column::U64(self.delivered_bytes))
            .col("goodput_bps", Column::F64(self.goodput_bps))
            .col("sent_pkts", Column::U64(self.sent_pkts))
            .col("retransmits", Column::U64(self.retransmits))
            .col("timeouts", Column::U64(self.timeouts))
            .col("fast_retransmits", Column::U64(self.fast_retransmits))
            .col("marks", Column::U64(self.marks))
            .col("ecn_cuts", Column::U64(self.ecn_cuts))
            .col("delivered_bytes_whole_run", Column::U64(self.delivered_bytes_whole_run))
            .col("sent_pkts_whole_run", Column::U64(self.sent_pkts_whole_run))
            .col("retransmits_whole_run", Column::U64(self.retransmits_whole_run))
            .col("timeouts_whole_run", Column::U64(self.timeouts_whole_run))
            .col("marks_whole_run", Column::U64(self.marks_whole_run))
            .col("ecn_cuts_whole_run", Column::U64(self.ecn_cuts_whole_run))
            .col("fct_s", Column::F64(self.fct_s))
            .col("cwnd_mean_pkt", Column::F64(self.cwnd_mean_pkt))
            .col("alpha_mean", Column::F64(self.alpha_mean))
            .col("cwnd_final_pkt", Column::F64(self.cwnd_final_pkt))
            .col("alpha_final", Column::F64(self.alpha_final))
            .col("rtt_rounds", Column::U64(self.rtt_rounds))
            .col("rtt_decreases", Column::U64(self.rtt_decreases))
            .col("p_decrease", Column::F64(self.p_decrease))
            .col("q_delay_mean_s", Column::F64(self.q_delay_mean_s))
            .col("base_rtt_s", Column::F64(self.base_rtt_s))
            .col("rtt_samples", Column::U64(self.rtt_samples))
            .col("rtt_samples_queued", Column::U64(self.rtt_samples_queued))
    }
}

#[derive(Default)]
struct PortCols {
    port: Vec<u64>,
    src: Vec<String>,
    dst: Vec<String>,
    monitored: Vec<bool>,
    rate_bps: Vec<f64>,
    utilization: Vec<f64>,
    busy_s: Vec<f64>,
    idle_s: Vec<f64>,
    tx_bytes: Vec<u64>,
    tx_pkts: Vec<u64>,
    arrivals: Vec<u64>,
    drops: Vec<u64>,
    marks: Vec<u64>,
    drops_whole_run: Vec<u64>,
    marks_whole_run: Vec<u64>,
    q_mean_pkt: Vec<f64>,
    q_mean_bytes: Vec<f64>,
    q_min_pkt: Vec<f64>,
    q_max_pkt: Vec<f64>,
    q_p50_pkt: Vec<f64>,
    q_p99_pkt: Vec<f64>,
    q_empty_frac: Vec<f64>,
}

impl PortCols {
    fn table(self) -> Table {
        Table::new("ports")
            .col("port", Column::U64(self.port))
            .col("src", Column::Str(self.src))
            .col("dst", Column::Str(self.dst))
            .col("monitored", Column::Bool(self.monitored))
            .col("rate_bps", Column::F64(self.rate_bps))
            .col("utilization", Column::F64(self.utilization))
            .col("busy_s", Column::F64(self.busy_s))
            .col("idle_s", Column::F64(self.idle_s))
            .col("tx_bytes", Column::U64(self.tx_bytes))
            .col("tx_pkts", Column::U64(self.tx_pkts))
            .col("arrivals", Column::U64(self.arrivals))
            .col("drops", Column::U64(self.drops))
            .col("marks", Column::U64(self.marks))
            .col("drops_whole_run", Column::U64(self.drops_whole_run))
            .col("marks_whole_run", Column::U64(self.marks_whole_run))
            .col("q_mean_pkt", Column::F64(self.q_mean_pkt))
            .col("q_mean_bytes", Column::F64(self.q_mean_bytes))
            .col("q_min_pkt", Column::F64(self.q_min_pkt))
            .col("q_max_pkt", Column::F64(self.q_max_pkt))
            .col("q_p50_pkt", Column::F64(self.q_p50_pkt))
            .col("q_p99_pkt", Column::F64(self.q_p99_pkt))
            .col("q_empty_frac", Column::F64(self.q_empty_frac))
    }
}
