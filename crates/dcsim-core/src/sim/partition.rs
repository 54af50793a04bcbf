//! Partitioned runs (`Spec::partitions` = P > 1): one world per part of the network, the parts
//! simulated side by side, one core each.
//!
//! **Split.** Every node belongs to one part: a fat-tree's pods (hosts, edge and aggregation
//! switches) go to the parts in P contiguous groups, its core switches in P contiguous groups of
//! their index; a leaf-spine's leaves (with their hosts) likewise, and its spines. A port belongs
//! to its sending node's part, so each world queues, marks and drops only at its own ports. A
//! flow's sender runs in its source host's world, its receiver in its destination's.
//!
//! **Windows (conservative synchronisation).** A packet accepted on a port whose far end is in
//! another part arrives there no earlier than the port's propagation delay plus the serialisation
//! of the smallest packet (a pure ACK) after it was sent. The least of these over the ports
//! between parts is the *lookahead* L (1 us + 32 ns on a 10 Gbps fabric with 1 us links), and time
//! is cut into windows [k L, (k + 1) L) on a fixed grid. Within a window the worlds run
//! independently: nothing one of them does in it can reach another before the window ends. A
//! packet for another part leaves its world as a message (its arrival time, port and contents,
//! and an ACK's SACK blocks, which in one world wait in the receiver's log for the sender);
//! when every world has finished the window, each takes the messages addressed to it, from world 0
//! up and in the order they were sent, and puts them into that port's pipe on its side, where an
//! arrival event delivers them as if the link were its own. A generated flow whose sender
//! finished is announced the same way, and its receiver's world frees the flow's state.
//!
//! **Determinism.** Each world handles its events in (time, sequence) order, and messages enter a
//! world only at window ends in a fixed order, so the results depend on the scenario (P included)
//! and the seed, never on thread timing nor on how many threads run the worlds. They are not the
//! one-world run's bit for bit: events of the same picosecond may be ordered differently (a
//! delivered packet's arrival event is scheduled at the window's end, not when it was sent), and a
//! receiver learns at the window's end, not at once, that its sender finished, so a data packet
//! arriving in between is acknowledged instead of ignored. Both are as valid physically; the tests
//! compare the two runs' physics.
//!
//! **Not partitioned** (refused by `Spec::validate`): L2 sources, CHOKe queues (a drop from the
//! middle of a queue would move packets already handed to another world) and incast workloads
//! (the next round waits for every flow of a round, wherever it ends). Every world keeps a copy of
//! the workload generators, which draw the same flows at the same times in all of them.
//!
//! The results merge the worlds: each port's row from its owner, each flow's sender columns from
//! its sender's world and receiver columns from its receiver's, drops summed over all, sampled
//! series interleaved in time order, counters summed.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::*;
use crate::transport::sack::{SackBlocks, SackLog};

/// No part: a port whose far end is in this world.
const LOCAL: u16 = u16::MAX;

/// A packet one world hands another: it arrives over `port` at the port's far end at `arrival`.
/// An ACK's SACK blocks travel with it (in one world they wait in the receiver's log, which the
/// sender reads by the id in `aux`; here the receiver is in another world).
#[derive(Clone)]
pub(super) struct Message {
    arrival: Time,
    port: PortId,
    pkt: Packet,
    sack: Option<Box<SackBlocks>>,
}

/// One world's part of a partitioned run.
pub(super) struct Part {
    me: u16,
    of_node: Arc<Vec<u16>>,
    /// Per port: the part its far end belongs to, if its sender is this world's and the far end
    /// another's (`LOCAL` otherwise).
    remote_to: Vec<u16>,
    /// Messages sent in the current window, per destination world, in sending order.
    outbox: Vec<Vec<Message>>,
    /// Generated flows whose sender (here) finished in the current window, per receiver world.
    finished: Vec<Vec<FlowId>>,
    /// Per flow whose receiver is in another world: the SACK blocks of its ACKs that crossed into
    /// this one, by their ids, until they reach the sender (here) or leave for another world.
    sack_mail: HashMap<FlowId, SackLog>,
}

impl Part {
    fn new(me: u16, of_node: Arc<Vec<u16>>, net: &Network, parts: usize) -> Part {
        let remote_to = net
            .ports
            .iter()
            .map(|p| {
                let (a, b) = (of_node[p.from as usize], of_node[p.to as usize]);
                if a == me && b != me {
                    b
                } else {
                    LOCAL
                }
            })
            .collect();
        Part {
            me,
            of_node,
            remote_to,
            outbox: vec![Vec::new(); parts],
            finished: vec![Vec::new(); parts],
            sack_mail: HashMap::new(),
        }
    }

    /// Whether node `n` is this world's.
    #[inline]
    pub(super) fn owns(&self, n: NodeId) -> bool {
        self.of_node[n as usize] == self.me
    }

    /// Whether port `pid` sends from this world to another.
    #[inline]
    pub(super) fn is_remote(&self, pid: PortId) -> bool {
        self.remote_to[pid as usize] != LOCAL
    }

    /// Hand the packet just accepted on remote port `pid` to the world of its far end, an ACK with
    /// its SACK blocks (see [`Part::sack_to_send`]).
    #[inline]
    pub(super) fn send(&mut self, pid: PortId, (arrival, pkt): (Time, Packet), flows: &mut [FlowSlot]) {
        let sack = if pkt.kind == Kind::Ack && pkt.aux != 0 { self.sack_to_send(&pkt, flows) } else { None };
        self.outbox[self.remote_to[pid as usize] as usize].push(Message { arrival, port: pid, pkt, sack });
    }

    /// The SACK blocks that leave with `ack`: those that came into this world with it; else, if
    /// its receiver is here and its sender elsewhere, those in the receiver's log. (With both ends
    /// here, the blocks stay in the log for the sender, the ACK's path only crossing another world.)
    #[cold]
    #[inline(never)]
    fn sack_to_send(&mut self, ack: &Packet, flows: &mut [FlowSlot]) -> Option<Box<SackBlocks>> {
        let blocks = match self.take_mailed_sack(ack.flow, ack.aux) {
            Some(b) => b,
            None if self.owns(ack.src) && !self.owns(ack.dst) => match flows.get_mut(ack.flow as usize) {
                Some(FlowSlot::Active(flow)) => flow.receiver.take_sack(ack.aux),
                _ => return None,
            },
            None => return None,
        };
        (!blocks.as_slice().is_empty()).then(|| Box::new(blocks))
    }

    /// The SACK blocks of flow `f`'s ACK with id `aux` that came into this world with it; None if
    /// none of the flow's did (they are in the receiver's log, here, or there were none).
    pub(super) fn take_mailed_sack(&mut self, f: FlowId, aux: u32) -> Option<SackBlocks> {
        let log = self.sack_mail.get_mut(&f)?;
        let blocks = log.take(aux);
        if log.is_empty() {
            self.sack_mail.remove(&f);
        }
        Some(blocks)
    }

    /// A generated flow's sender (here) finished: tell its receiver's world, if another.
    pub(super) fn sender_finished(&mut self, f: FlowId, dst: NodeId) {
        self.sack_mail.remove(&f); // blocks of ACKs it no longer needs
        let d = self.of_node[dst as usize];
        if d != self.me {
            self.finished[d as usize].push(f);
        }
    }

    /// Packets sent to other worlds and not yet handed over (in flight).
    pub(super) fn unsent_mail(&self) -> u64 {
        self.outbox.iter().map(|o| o.len() as u64).sum()
    }
}

/// The part of every node: fat-tree pods and core switches, or leaf-spine leaves and spines, in
/// `parts` contiguous groups each (see the module docs).
fn assign(spec: &Spec, net: &Network, parts: u32) -> Result<Vec<u16>> {
    let mut of_node = vec![u16::MAX; net.nodes.len()];
    let group = |i: u64, n: u64| (i * parts as u64 / n) as u16;
    let mut set = |name: String, part: u16| -> Result<()> {
        let id = net
            .node_id(&name)
            .ok_or_else(|| Error::Run(format!("partitioning: no node {name:?} (a bug in dcsim, please report it)")))?;
        of_node[id as usize] = part;
        Ok(())
    };
    match &spec.topology {
        TopologySpec::FatTree { k, .. } => {
            let (k, half) = (*k as u64, *k as u64 / 2);
            for pod in 0..k {
                let part = group(pod, k);
                // The pod's edge and aggregation switches share their numbers; each edge switch
                // has half hosts.
                for i in pod * half..(pod + 1) * half {
                    set(format!("edge{i}"), part)?;
                    set(format!("agg{i}"), part)?;
                    for h in 0..half {
                        set(crate::scenario::tree_host_name(i * half + h), part)?;
                    }
                }
            }
            for c in 0..half * half {
                set(format!("core{c}"), group(c, half * half))?;
            }
        }
        TopologySpec::LeafSpine { leaves, spines, hosts_per_leaf, .. } => {
            let (leaves, spines, per) = (*leaves as u64, *spines as u64, *hosts_per_leaf as u64);
            for l in 0..leaves {
                set(format!("leaf{l}"), group(l, leaves))?;
                for h in 0..per {
                    set(crate::scenario::tree_host_name(l * per + h), group(l, leaves))?;
                }
            }
            for s in 0..spines {
                set(format!("spine{s}"), group(s, spines))?;
            }
        }
        other => {
            return Err(invalid("run.partitions", format!("cannot split a {} topology", other.kind())));
        }
    }
    if let Some(n) = of_node.iter().position(|&p| p == u16::MAX) {
        return Err(Error::Run(format!(
            "partitioning: node {:?} has no part (a bug in dcsim, please report it)",
            net.nodes[n].name
        )));
    }
    Ok(of_node)
}

/// The lookahead: the least time a packet takes over a link between two parts (propagation plus
/// the whole-picosecond serialisation of a pure ACK, the smallest packet), ps; None if no link
/// joins two parts.
fn lookahead_ps(net: &Network, of_node: &[u16], header_bytes: u32) -> Option<u64> {
    net.ports
        .iter()
        .filter(|p| of_node[p.from as usize] != of_node[p.to as usize])
        .map(|p| p.delay.0 + p.rate.tx_time_carry(header_bytes, 0).0 .0)
        .min()
}

/// A partitioned run's schedule: the window grid and the threads that run the worlds.
pub(super) struct Driver {
    of_node: Arc<Vec<u16>>,
    /// Window length (the lookahead), ps.
    window_ps: u64,
    /// End (exclusive) of the window in progress, ps.
    window_end: u64,
    /// Windows completed (their mail exchanged) so far.
    windows: u64,
    threads: usize,
}

impl Driver {
    pub(super) fn threads(&self) -> usize {
        self.threads
    }
    pub(super) fn set_threads(&mut self, n: usize) {
        self.threads = n;
    }
}

/// Build a partitioned simulation: one world per part (see the module docs).
pub(super) fn build(spec: Spec) -> Result<Sim> {
    spec.check()?;
    let parts = spec.partitions;
    let net = topology::build(&spec)?;
    let of_node = Arc::new(assign(&spec, &net, parts)?);
    // Positive: a pure ACK takes a positive time at any finite rate. Without a link between parts
    // (impossible with the splits above) one window spans the run.
    let window_ps = lookahead_ps(&net, &of_node, spec.header_bytes).unwrap_or(spec.duration_ps).max(1);
    // The parts first, then this network goes before the worlds build theirs: kept, it was one
    // world's network more at the build's peak (67 MB at k = 40; an audit).
    let part_of: Vec<Part> = (0..parts as u16).map(|me| Part::new(me, of_node.clone(), &net, parts as usize)).collect();
    drop(net);
    let worlds =
        part_of.into_iter().map(|part| World::build(spec.clone(), Some(Box::new(part)))).collect::<Result<Vec<_>>>()?;
    // Short windows: the worlds take turns on one thread (see MIN_THREADED_WINDOW_PS).
    let threads = if window_ps < MIN_THREADED_WINDOW_PS {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(parts as usize)
    };
    Ok(Sim { worlds, par: Some(Box::new(Driver { of_node, window_ps, window_end: window_ps, windows: 0, threads })) })
}

/// Shortest window (lookahead) for which a partitioned run's worlds get threads of their own, ps.
/// Shorter windows (links of zero or sub-microsecond delay) end too often for threads to pay:
/// every window's end is a meeting of all threads, and with any other process busy on the
/// machine a meeting waits for a descheduled thread's next time slice. Their worlds take turns
/// on one thread instead; the results are the same either way. A fuzz run found a leaf-spine with zero link delay (windows of ~10 ns) 3 x slower in two
/// threads than as one world on an idle machine, and 20-33 x slower beside one or two busy
/// processes; the k = 16 fat-tree of the benchmark has windows of 1.032 us.
pub const MIN_THREADED_WINDOW_PS: u64 = 1_000_000;

/// A barrier for the threads running the worlds, which also hands every thread the same verdict
/// on the window just ended (computed once, by the last thread to arrive). A thread spins briefly
/// (windows last microseconds), then yields its core at every check: with more threads than cores
/// (two partitioned runs of a sweep on two cores) the thread it waits for needs that core. The
/// k = 16 fat-tree (10 ms of the benchmark), 2 partitions, alone / two runs at once on 2 cores:
/// 256 spins 1.45-1.49 s / 2.9-3.6 s, 4 096 spins 1.64 s / 4.7 s (two one-world runs at once:
/// 3.3 s).
struct Barrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    verdict: AtomicBool,
}

impl Barrier {
    fn new(n: usize) -> Barrier {
        Barrier { n, arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0), verdict: AtomicBool::new(false) }
    }

    fn wait(&self, decide: impl FnOnce() -> bool) -> bool {
        let gen = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            self.verdict.store(decide(), Ordering::Relaxed);
            self.generation.store(gen + 1, Ordering::Release);
        } else {
            let mut spins = 0u32;
            while self.generation.load(Ordering::Acquire) == gen {
                spins += 1;
                if spins < 1 << 8 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        self.verdict.load(Ordering::Relaxed)
    }
}

/// What the threads share while they run windows: the mail between worlds (two sets, by window
/// parity, so that a world may send in the next window while another still reads this one's),
/// the events handled, and the first error.
struct Shared {
    parts: usize,
    window_ps: u64,
    barrier: Barrier,
    mail: Vec<Mutex<Vec<Message>>>,
    done: Vec<Mutex<Vec<FlowId>>>,
    events: AtomicU64,
    failed: AtomicBool,
    errors: Vec<Mutex<Option<Error>>>,
}

impl Shared {
    fn slot(&self, parity: u64, from: usize, to: usize) -> usize {
        (parity as usize * self.parts + from) * self.parts + to
    }
}

impl World {
    /// A packet another world sent: into the pipe of its port on this side.
    fn deliver(&mut self, m: Message) {
        let port = &mut self.net.ports[m.port as usize];
        let was_empty = port.in_pipe() == 0;
        port.push_arrival(m.arrival, m.pkt);
        if was_empty {
            self.events.push(m.arrival, Ev::Arrive(m.port));
        }
        if let Some(blocks) = m.sack {
            self.part_mut().sack_mail.entry(m.pkt.flow).or_default().push(m.pkt.aux, *blocks);
        }
    }

    /// Step 1 of [`Sim::end_partitioned`] in this world: the events of now + 1 ps handled but the
    /// workloads' (returned, unfired), now = now + 1 ps; with a handler's error if one failed
    /// meanwhile (a memory stop met there is dropped, as [`World::end_here`] drops it: the run
    /// ends anyway).
    fn step_past_for_end(&mut self) -> (Vec<(Time, Ev)>, Option<Error>) {
        let mut deferred = Vec::new();
        self.fault_ends_instant = true;
        let ok = self.track_growth(|w| w.step_past_instant(&mut deferred));
        self.fault_ends_instant = false;
        let fault = self.fault.take();
        (deferred, if ok { None } else { fault })
    }

    /// The sender of generated flow `f` (in another world) finished: free the receiver's state,
    /// keeping its row.
    fn receiver_done(&mut self, f: FlowId) {
        self.retire(f);
    }

    fn part_mut(&mut self) -> &mut Part {
        self.part.as_deref_mut().expect("a partitioned world")
    }

    /// This flow's row as this world has it (Active or finished).
    fn row_here(&self, f: FlowId) -> Option<FlowRow> {
        match &self.flows[f as usize] {
            FlowSlot::Active(fl) => Some(fl.row(f)),
            FlowSlot::Done(i) => Some(self.rows[*i as usize]),
            FlowSlot::Elsewhere(_) => None,
        }
    }

    /// Drops of flow `f`'s packets counted here: whole run and after warm-up.
    fn drops_here(&self, f: FlowId) -> Drops {
        match &self.flows[f as usize] {
            FlowSlot::Elsewhere(d) => *d,
            _ => self.row_here(f).map_or(Drops::default(), |r| Drops { whole: r.whole.drops, post: r.post.drops }),
        }
    }
}

/// Run one world's share of a window (events up to and including `upto`), turning a panic (a
/// bug) into an error so that the other threads are not left waiting for this one.
fn run_share(w: &mut World, upto: Time) -> Result<u64> {
    let before = w.events.popped();
    match catch_unwind(AssertUnwindSafe(|| w.run_until_budget(upto, u64::MAX))) {
        Ok(r) => r.map(|_| w.events.popped() - before),
        Err(p) => Err(internal_error(p)),
    }
}

/// A panic's message as the error that stops the run.
fn internal_error(p: Box<dyn std::any::Any + Send>) -> Error {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    Error::Run(format!("internal error in a partition's world: {what} (a bug in dcsim, please report it)"))
}

/// Record world `me`'s error (the first stays) and stop every thread at the next barrier.
fn fail(sh: &Shared, me: u16, e: Error) {
    sh.errors[me as usize].lock().expect("error slot").get_or_insert(e);
    sh.failed.store(true, Ordering::Relaxed);
}

/// The windows one thread runs for its worlds, in step with the other threads, from the window
/// ending at `window_end` on. Returns the end of the window in progress and the windows completed.
fn run_thread(
    worlds: &mut [World],
    sh: &Shared,
    mut window_end: u64,
    mut windows: u64,
    target: u64,
    max_events: u64,
) -> (u64, u64) {
    loop {
        let upto = (window_end - 1).min(target);
        let mut handled = 0;
        // Every world runs its whole share, also after another's failure in this window (the
        // threads meet at the barrier, which then stops all): which worlds' errors a window leaves,
        // and so which one the run reports (the first world's), does not depend on the threads'
        // timing. Skipping the shares of worlds not yet started when another failed had made one
        // spec stop at 316.9 or at 317 us from run to run (a review).
        for w in worlds.iter_mut() {
            match run_share(w, Time(upto)) {
                Ok(n) => handled += n,
                Err(e) => fail(sh, w.part_mut().me, e),
            }
        }
        if upto < window_end - 1 {
            // The target lies inside this window: stop there; the window goes on at the next call
            // (every thread sees the same target and stops here too).
            return (window_end, windows);
        }
        // The window is complete: post its mail, wait for every world, take this world's.
        let parity = windows % 2;
        for w in worlds.iter_mut() {
            let p = w.part_mut();
            let me = p.me as usize;
            for to in 0..sh.parts {
                if !p.outbox[to].is_empty() {
                    sh.mail[sh.slot(parity, me, to)].lock().expect("mail").append(&mut p.outbox[to]);
                }
                if !p.finished[to].is_empty() {
                    sh.done[sh.slot(parity, me, to)].lock().expect("mail").append(&mut p.finished[to]);
                }
            }
        }
        sh.events.fetch_add(handled, Ordering::Relaxed);
        let go_on = sh.barrier.wait(|| {
            !sh.failed.load(Ordering::Relaxed) && window_end <= target && sh.events.load(Ordering::Relaxed) < max_events
        });
        for w in worlds.iter_mut() {
            let me = w.part_mut().me;
            // The mail grows this world's pipes: its growth, counted as such (`track_growth`).
            let taken = catch_unwind(AssertUnwindSafe(|| {
                w.track_growth(|w| {
                    for from in 0..sh.parts {
                        let msgs =
                            std::mem::take(&mut *sh.mail[sh.slot(parity, from, me as usize)].lock().expect("mail"));
                        for m in msgs {
                            w.deliver(m);
                        }
                        let done =
                            std::mem::take(&mut *sh.done[sh.slot(parity, from, me as usize)].lock().expect("mail"));
                        for f in done {
                            w.receiver_done(f);
                        }
                    }
                })
            }));
            if let Err(p) = taken {
                fail(sh, me, internal_error(p));
            }
        }
        window_end += sh.window_ps;
        windows += 1;
        if !go_on {
            return (window_end, windows);
        }
    }
}

impl Sim {
    /// [`Sim::run_until_budget`] of a partitioned run: windows until `t` (or until about
    /// `max_events` events were handled, at a window's end).
    pub(super) fn run_partitioned(&mut self, t: Time, max_events: u64) -> Result<bool> {
        let w0 = &self.worlds[0];
        if w0.taken {
            return Err(Error::Run("the results were already taken; build a new simulation to run again".into()));
        }
        let target = t.min(w0.end);
        if target < w0.now {
            return Err(Error::Run(format!("cannot run back in time: now = {} ps, asked {} ps", w0.now.0, target.0)));
        }
        let d = self.par.as_deref().expect("a partitioned run");
        let parts = self.worlds.len();
        // Contiguous groups of worlds, one per thread (this thread runs the first): as many
        // groups as threads allow, which can be fewer than the threads (6 worlds on 4 threads:
        // groups of 2, so 3 threads), and the barrier counts the groups.
        let per = parts.div_ceil(d.threads);
        let groups = parts.div_ceil(per);
        let sh = Shared {
            parts,
            window_ps: d.window_ps,
            barrier: Barrier::new(groups),
            mail: (0..2 * parts * parts).map(|_| Mutex::new(Vec::new())).collect(),
            done: (0..2 * parts * parts).map(|_| Mutex::new(Vec::new())).collect(),
            events: AtomicU64::new(0),
            failed: AtomicBool::new(false),
            errors: (0..parts).map(|_| Mutex::new(None)).collect(),
        };
        let (start, windows) = (d.window_end, d.windows);
        let (end, windows) = std::thread::scope(|s| {
            let mut chunks = self.worlds.chunks_mut(per);
            let mine = chunks.next().expect("a world");
            let others: Vec<_> =
                chunks.map(|g| s.spawn(|| run_thread(g, &sh, start, windows, target.0, max_events))).collect();
            let r = run_thread(mine, &sh, start, windows, target.0, max_events);
            // Every thread returns at the same window (run_thread catches panics and stops all).
            for h in others {
                let _ = h.join();
            }
            r
        });
        // Mail of a completed window is delivered; an error stops the run with the first world's.
        for e in &sh.errors {
            if let Some(e) = e.lock().expect("error slot").take() {
                return Err(e);
            }
        }
        let d = self.par.as_deref_mut().expect("a partitioned run");
        d.window_end = end;
        d.windows = windows;
        Ok(self.worlds[0].now >= target)
    }

    /// [`Sim::end_here`] of a partitioned run (a run.max_wall stop between two calls of
    /// [`Sim::run_until_budget`]). Every world fires the workloads' events (each keeps a copy of
    /// the generators), so where they fired at now = t, every world had the flow a run to t never
    /// starts (a max_wall stop at a chunk's end where a trace flow was due kept 201 flows against
    /// the 200 of a fresh run of the partial's spec: a review). The run then ends at t + 1 ps in
    /// every world, as a run to t + 1 ps would:
    ///
    /// 1. each world handles the events of t + 1 ps but the workloads' (taken out unfired,
    ///    [`World::step_past_instant`]). No world needs another's mail for that: the worlds
    ///    returned at t with every event up to t handled and t + 1 ps inside the window in
    ///    progress (t inside a window, or t + 1 ps the first instant of the next, its mail
    ///    delivered), and a packet sent in a window arrives at the earliest at its end. What the
    ///    worlds send meanwhile waits in their outboxes, counted in flight ([`World::in_flight`]),
    ///    as it does after any return inside a window;
    /// 2. the worlds then run to t + 1 ps through [`Sim::run_partitioned`] (no events are left to
    ///    handle): where t + 1 ps ends the window, its mail is exchanged, delivered and counted as
    ///    a run to t + 1 ps does, in the same order, so the results are its own whatever the
    ///    threads' timing;
    /// 3. the workload events go back into each world's queue, not counted as handled; the run
    ///    cannot go on (`closed_past_stop`: they would fire late).
    ///
    /// Nothing is done where no workload fired at t, after the results were taken, or in a run
    /// that failed or was already ended here. Errors if a handler fails meanwhile (the run, also
    /// ended, then keeps nothing).
    pub(super) fn end_partitioned(&mut self) -> Result<()> {
        let (t, end, taken) = (self.worlds[0].now, self.worlds[0].end, self.worlds[0].taken);
        if taken
            || t >= end
            || self
                .worlds
                .iter_mut()
                .any(|w| w.now != t || w.closed_past_stop || w.fault.is_some() || w.events.peek_time() == Some(t))
            || !self.worlds.iter().any(|w| w.workload_at == Some(t))
        {
            return Ok(());
        }
        let mut deferred = Vec::with_capacity(self.worlds.len());
        let mut failed = None;
        for w in &mut self.worlds {
            let (d, e) = w.step_past_for_end();
            deferred.push(d);
            failed = failed.or(e);
        }
        let ran = if failed.is_none() { self.run_partitioned(t + Time(1), u64::MAX).map(|_| ()) } else { Ok(()) };
        for (w, d) in self.worlds.iter_mut().zip(deferred) {
            w.put_back_unfired(d);
            w.closed_past_stop = true;
        }
        match failed {
            Some(e) => Err(e),
            None => ran,
        }
    }

    /// The merged result tables of a partitioned run (see the module docs).
    pub(super) fn results_partitioned(&mut self) -> Result<Vec<Table>> {
        if self.worlds[0].taken {
            return Err(Error::Run("the results were already taken".into()));
        }
        let of_node = self.par.as_deref().expect("a partitioned run").of_node.clone();
        let now = self.worlds[0].now;
        let c = self.counters();
        let in_flight = self.in_flight();
        for w in &mut self.worlds {
            for f in &mut w.flows {
                if let FlowSlot::Active(f) = f {
                    f.sender.integrate(now);
                }
            }
        }
        // Flows: sender columns from the sender's world, receiver columns from the receiver's,
        // drops from every world.
        let n = self.worlds[0].flows.len();
        let mut rows = Vec::with_capacity(n);
        for f in 0..n as FlowId {
            let any = self.worlds.iter().find_map(|w| w.row_here(f)).expect("some world holds every flow");
            let (s, d) = (of_node[any.src as usize] as usize, of_node[any.dst as usize] as usize);
            let mut r = self.worlds[s].row_here(f).expect("the sender's world holds the flow");
            let rd = self.worlds[d].row_here(f).expect("the receiver's world holds the flow");
            r.whole.delivered_bytes = rd.whole.delivered_bytes;
            r.whole.ce_received = rd.whole.ce_received;
            r.post.delivered_bytes = rd.post.delivered_bytes;
            r.post.ce_received = rd.post.ce_received;
            let drops = self
                .worlds
                .iter()
                .map(|w| w.drops_here(f))
                .fold(Drops::default(), |a, b| Drops { whole: a.whole + b.whole, post: a.post + b.post });
            r.whole.drops = drops.whole;
            r.post.drops = drops.post;
            rows.push(r);
        }
        // Ports: each from its owner.
        let (first, rest) = self.worlds.split_at_mut(1);
        let w0 = &mut first[0];
        for pid in 0..w0.net.ports.len() {
            let o = of_node[w0.net.ports[pid].from as usize] as usize;
            if o != 0 {
                std::mem::swap(&mut w0.net.ports[pid], &mut rest[o - 1].net.ports[pid]);
            }
        }
        // Sampled series: every world's rows, interleaved by time, then by the port's or flow's
        // place in the monitored or traced list (the one-world order).
        let mon_index: std::collections::HashMap<u64, usize> =
            w0.net.monitored.iter().enumerate().map(|(i, &p)| (p as u64, i)).collect();
        let traced_index: std::collections::HashMap<u64, usize> =
            w0.traced.iter().enumerate().map(|(i, &f)| (f as u64, i)).collect();
        let mut qs = vec![std::mem::take(&mut w0.queue_probe)];
        let mut ts = vec![std::mem::take(&mut w0.tp_probe)];
        let mut cs = vec![std::mem::take(&mut w0.cwnd_probe)];
        for w in rest.iter_mut() {
            qs.push(std::mem::take(&mut w.queue_probe));
            ts.push(std::mem::take(&mut w.tp_probe));
            cs.push(std::mem::take(&mut w.cwnd_probe));
        }
        w0.queue_probe = crate::metrics::interleave(&qs, &mon_index);
        w0.tp_probe = crate::metrics::interleave(&ts, &traced_index);
        w0.cwnd_probe = crate::metrics::interleave(&cs, &traced_index);
        w0.flows = (0..n as u32).map(FlowSlot::Done).collect();
        w0.rows = rows;
        for w in rest.iter_mut() {
            w.taken = true;
            // Their flows' state is in the merged rows: freed now, not when the run is dropped.
            w.flows = Vec::new();
            w.rows = Vec::new();
            w.live_flows = 0;
        }
        w0.tables(c, in_flight)
    }

    /// Packet conservation over every world, then each world's own invariants.
    pub(super) fn check_invariants_partitioned(&mut self) -> Result<()> {
        check_conservation(self.counters(), self.in_flight())?;
        for w in &mut self.worlds {
            w.check_local_invariants()?;
        }
        Ok(())
    }
}
