//! A store-and-forward egress port: a FIFO queue with a capacity and a discipline, feeding a
//! link of fixed rate and propagation delay. The packet being serialised is not counted as
//! queued (ns-2 convention): the queue an arriving packet sees is what waits behind the link.
//!
//! Every discipline here decides at enqueue time and the queue is FIFO at a fixed rate, so a
//! packet's transmission start and end are known the moment it is accepted:
//! start = max(now, end of the previous packet), end = start + size/rate. The port therefore
//! needs no "transmission done" events. It keeps (start, end, size) of the packets not yet fully
//! sent, from which the queue length at any instant follows exactly, and a FIFO *pipe* of the
//! accepted packets with their arrival times at the next node (end + propagation delay), which
//! increase along the pipe. The simulator keeps one event per port, for the pipe's head, so the
//! event heap stays as small as the number of ports and packets never move through it.
//!
//! CHOKe removes waiting packets ([`Port::enqueue`] evicts its victims): the packets behind a
//! removed one are shifted forward by exactly its serialisation time (the carried remainder is
//! kept per packet, so the shifted schedule equals the one the port would have had without the
//! removed packet), and their arrival times in the pipe with them. A waiting packet is never the
//! pipe's head (the packet on the wire, or one propagating, is ahead of it), so the simulator's
//! one arrival event per port stays valid. Only packets not yet on the wire can be removed.

#[path = "ring.rs"]
mod ring;
use crate::aqm::choke::flow_key;
use crate::aqm::{Aqm, Discipline, QueueView, Verdict};
use crate::packet::{Kind, NodeId, Packet};
use crate::rng::Rng;
use crate::scenario::Amount;
use crate::units::{Rate, Time};
use ring::Ring;
use std::cell::Cell;

/// Event counters of a port, whole run. The post-warm-up values are these minus the snapshot the
/// simulator takes at the warm-up instant ([`Port::on_warmup`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortCounts {
    pub arrivals: u64,
    pub drops: u64,
    pub marks: u64,
    /// Packets and bytes whose serialisation ended.
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    /// Packets dropped after they had been queued (CHOKe victims); included in `drops`.
    pub evictions: u64,
}

impl std::ops::Sub for PortCounts {
    type Output = PortCounts;
    fn sub(self, o: PortCounts) -> PortCounts {
        PortCounts {
            arrivals: self.arrivals - o.arrivals,
            drops: self.drops - o.drops,
            marks: self.marks - o.marks,
            tx_pkts: self.tx_pkts - o.tx_pkts,
            tx_bytes: self.tx_bytes - o.tx_bytes,
            evictions: self.evictions - o.evictions,
        }
    }
}

/// Time statistics of the exact queue trajectory over [warmup, now): every interval during which
/// the number of waiting packets is constant counts with its length, so the level the queue
/// already had at warm-up counts too, and nothing depends on a sampling interval.
#[derive(Clone, Debug, Default)]
pub struct QueueTimeStats {
    /// Integral of the queue length over time, packet·ps and byte·ps.
    pub area_pkt_ps: u128,
    pub area_bytes_ps: u128,
    /// Smallest and largest queue length held for a positive time, packets.
    pub min_pkt: Option<u64>,
    pub max_pkt: Option<u64>,
    /// Time the link spent serialising, ps (the part of each packet's transmission after warm-up).
    pub busy_ps: u64,
    /// Monitored ports only: time spent at each queue length, ps (index = packets waiting).
    pub hist_ps: Option<Vec<u64>>,
}

/// A packet accepted by the port and not yet fully serialised.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    start: Time,
    end: Time,
    size: u32,
    /// The packet waited in the queue (it did not go straight onto an idle wire).
    waited: bool,
    /// Serialisation remainder at `end` (see [`Rate::tx_time_carry`]).
    carry: u64,
}

thread_local! {
    /// Entries by which the queue-length histograms have grown on this thread so far (they never
    /// shrink): see [`grown_bytes`].
    static HIST_ENTRIES_GROWN: Cell<u64> = const { Cell::new(0) };
}

/// Bytes by which the ports' rings and histograms (histogram entries at `row_bytes` more each, as
/// [`Port::growing_bytes`] counts them) have grown on this thread so far: what a world's grew by
/// while it ran here (`World::track_growth`; see [`ring::grown_bytes`]).
pub fn grown_bytes(row_bytes: usize) -> u128 {
    ring::grown_bytes() as u128
        + HIST_ENTRIES_GROWN.with(Cell::get) as u128 * (std::mem::size_of::<u64>() + row_bytes) as u128
}

/// A queue length the histogram has not seen: room up to `len` entries.
#[cold]
#[inline(never)]
fn grow_hist(h: &mut Vec<u64>, len: usize) {
    HIST_ENTRIES_GROWN.with(|g| g.set(g.get() + (len - h.len()) as u64));
    h.resize(len, 0);
}

pub struct Port {
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    capacity: Amount,
    pub aqm: Aqm,
    pub rng: Rng,
    /// Accepted packets whose transmission has not ended, in FIFO order.
    slots: Ring<Slot>,
    /// slots[..started] have started transmission (at most one of them is still on the wire).
    started: usize,
    /// Packets and bytes waiting (not yet started).
    q_pkts: u64,
    q_bytes: u64,
    /// End of the last accepted packet's transmission.
    last_end: Time,
    /// Accepted packets and their arrival times at `to`, in order.
    pipe: Ring<(Time, Packet)>,
    /// Remainder of the last serialisation time (see [`Rate::tx_time_carry`]), carried while the
    /// link stays busy.
    tx_carry: u64,
    /// Time up to which the queue-length statistics are accounted.
    last_change: Time,
    warmup: Time,
    counts: PortCounts,
    counts_at_warmup: Option<PortCounts>,
    qstats: QueueTimeStats,
    /// Queued packets dropped by the discipline (CHOKe victims) since the simulator last took them.
    evicted: Vec<Packet>,
    /// The serialisation of the two packet sizes seen last: (bytes, whole ps, remainder).
    tx_sizes: [TxSize; 2],
    /// A host NIC's random send delay (`Spec::host_jitter_ps`; 0: none): see [`Port::release`].
    tx_jitter_ps: u64,
    /// The last data packet's release (see [`Port::release`]).
    last_release: Time,
    /// A release drawn by [`Port::next_start`] for the packet enqueued next.
    pending_release: Option<Time>,
}

/// One packet size's serialisation at a port's rate: `bytes` x 8 x 10^12 = `ps` x rate + `rem`.
#[derive(Clone, Copy, Debug)]
struct TxSize {
    bytes: u32,
    ps: u64,
    rem: u64,
}

impl TxSize {
    fn new(rate: Rate, bytes: u32) -> TxSize {
        let (t, rem) = rate.tx_time_carry(bytes, 0);
        TxSize { bytes, ps: t.0, rem }
    }
}

/// A port's statistics closed at some instant (see [`Port::stats_at`]).
#[derive(Clone, Debug)]
pub struct PortStats {
    /// Whole-run event counters.
    pub whole_run: PortCounts,
    /// Event counters after warm-up (zero if warm-up has not been reached).
    pub after_warmup: PortCounts,
    /// Time statistics over [warmup, now).
    pub queue: QueueTimeStats,
    /// Length of [warmup, now), ps.
    pub span_ps: u64,
}

impl Port {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        from: NodeId,
        to: NodeId,
        rate: Rate,
        delay: Time,
        capacity: Amount,
        aqm: Aqm,
        rng: Rng,
        warmup: Time,
    ) -> Self {
        Port {
            from,
            to,
            rate,
            delay,
            capacity,
            aqm,
            rng,
            slots: Ring::new(),
            started: 0,
            q_pkts: 0,
            q_bytes: 0,
            last_end: Time::ZERO,
            pipe: Ring::new(),
            tx_carry: 0,
            last_change: Time::ZERO,
            warmup,
            counts: PortCounts::default(),
            counts_at_warmup: None,
            qstats: QueueTimeStats::default(),
            evicted: Vec::new(),
            // Sizes no packet has (0 B): the first packets fill the cache.
            tx_sizes: [TxSize { bytes: 0, ps: 0, rem: 0 }; 2],
            tx_jitter_ps: 0,
            last_release: Time::ZERO,
            pending_release: None,
        }
    }

    /// Give each data packet (and L2 data frame) a random send delay of up to `ps` (a host NIC; see
    /// `Spec::host_jitter_ps` and [`Port::release`]).
    pub fn set_tx_jitter(&mut self, ps: u64) {
        self.tx_jitter_ps = ps;
    }

    /// When a data packet handed to this NIC at `now` is released to it, with a host jitter J: as
    /// ns-2's TCP `overhead_` timer, each waits U[0, J] after `now` or after the previous one's
    /// release, whichever is later (the releases are chained, one at a time), and then queues for
    /// the wire as usual. The delay runs beside the transmission of the packets before it (a
    /// review: a delay added after each transmission had capped a NIC at T/(T + J/2), two thirds
    /// at J = T); with the hosts' backpressure (`Spec::host_backlog_pkt` = 2, those awaiting
    /// release included) one flow keeps its line rate up to J = T, 0.3 % less at 1.5 T, 5 % at 1.8 T.
    /// ACKs and feedback frames draw no delay (ns-2's sinks have no overhead_).
    fn release(&mut self, now: Time) -> Time {
        if let Some(r) = self.pending_release.take() {
            return r;
        }
        let r = now.max(self.last_release) + Time(rand::Rng::random_range(&mut self.rng, 0..=self.tx_jitter_ps));
        self.last_release = r;
        r
    }

    /// Keep a histogram of the time spent at each queue length (monitored ports).
    /// Buffer capacity.
    pub fn capacity(&self) -> Amount {
        self.capacity
    }

    pub fn keep_histogram(&mut self) {
        self.qstats.hist_ps.get_or_insert_with(Vec::new);
    }

    /// The simulator calls this at the warm-up instant: counters from now on are post-warm-up.
    pub fn on_warmup(&mut self) {
        self.counts_at_warmup = Some(self.counts);
    }

    /// Whole-run event counters so far.
    pub fn counts(&self) -> PortCounts {
        self.counts
    }

    /// Packets waiting (not counting the one on the wire), as of the last `advance`.
    #[inline]
    pub fn q_pkts(&self) -> u64 {
        self.q_pkts
    }
    #[inline]
    pub fn q_bytes(&self) -> u64 {
        self.q_bytes
    }
    /// Packets accepted and not yet fully serialised (waiting + on the wire).
    pub fn unsent(&self) -> u64 {
        self.slots.len() as u64
    }
    /// Sum of the sizes of the waiting packets, recomputed (for invariant checks).
    pub fn waiting_bytes_recount(&self) -> u64 {
        self.slots.iter().skip(self.started).map(|s| s.size as u64).sum()
    }

    /// Account the queue statistics on [last_change, t) at the current length.
    #[inline]
    fn integrate_to(&mut self, t: Time) {
        if t > self.warmup && t > self.last_change {
            let dt = (t - self.last_change.max(self.warmup)).0;
            let q = self.q_pkts;
            let st = &mut self.qstats;
            if q > 0 {
                st.area_pkt_ps += q as u128 * dt as u128;
                st.area_bytes_ps += self.q_bytes as u128 * dt as u128;
            }
            st.min_pkt = Some(st.min_pkt.map_or(q, |m| m.min(q)));
            st.max_pkt = Some(st.max_pkt.map_or(q, |m| m.max(q)));
            if let Some(h) = &mut st.hist_ps {
                if h.len() <= q as usize {
                    grow_hist(h, q as usize + 1);
                }
                h[q as usize] += dt;
            }
        }
        self.last_change = self.last_change.max(t);
    }

    /// The part of [start, end) after warm-up, ps.
    #[inline]
    fn busy_after_warmup(&self, start: Time, end: Time) -> u64 {
        end.0.saturating_sub(start.0.max(self.warmup.0))
    }

    /// Bring the port to time `now`: packets whose transmission started leave the queue (at
    /// their exact start times), packets whose transmission ended leave the port, and the queue
    /// statistics are closed at `now`.
    pub fn advance(&mut self, now: Time) {
        self.sync(now);
        self.integrate_to(now);
    }

    /// [`Self::advance`] without closing the queue statistics at `now`: they are accounted up to
    /// the last change of the queue length, and the interval since then (at the same length) is
    /// added at the next change or the next `advance`. The sums are exact integers, so splitting
    /// an interval or not gives the same totals; this only saves work on the hot path (a host
    /// reading its NIC's backlog, an arrival that goes straight onto an idle wire).
    // Always inlined, like `forward_on` and `EventQueue::push` (the compiler left all three out of
    // line): N = 10 1 s 0.207 -> 0.190 s together (9 interleaved runs, medians), tables the same.
    #[inline(always)]
    pub fn sync(&mut self, now: Time) {
        while self.started < self.slots.len() && self.slots[self.started].start <= now {
            let s = self.slots[self.started];
            self.integrate_to(s.start);
            self.q_pkts -= 1;
            self.q_bytes -= s.size as u64;
            self.started += 1;
        }
        while let Some(s) = self.slots.front() {
            if s.end > now {
                break;
            }
            let s = *s;
            self.counts.tx_bytes += s.size as u64;
            self.counts.tx_pkts += 1;
            self.qstats.busy_ps += self.busy_after_warmup(s.start, s.end);
            self.slots.pop_front();
            self.started -= 1;
        }
    }

    /// [`Rate::tx_time_carry`] without a division for the sizes a port sees most (a data
    /// flow's full packets, its ACKs): with `bytes` x 8 x 10^12 = q x rate + r (cached) and
    /// carry < rate, the sum is q x rate + (r + carry) with r + carry < 2 rate, so the quotient is
    /// q or q + 1 and the remainder follows by one subtraction. Exactly the same integers.
    #[inline]
    fn tx_time_carry(&mut self, bytes: u32, carry: u64) -> (Time, u64) {
        let e = if self.tx_sizes[0].bytes == bytes {
            self.tx_sizes[0]
        } else if self.tx_sizes[1].bytes == bytes {
            self.tx_sizes[1]
        } else {
            let e = TxSize::new(self.rate, bytes);
            self.tx_sizes[1] = self.tx_sizes[0];
            self.tx_sizes[0] = e;
            e
        };
        let rate = self.rate.bps();
        let sum = e.rem + carry;
        if sum >= rate {
            (Time(e.ps + 1), sum - rate)
        } else {
            (Time(e.ps), sum)
        }
    }

    /// Room for `size` more bytes with `more_pkts` / `more_bytes` more waiting than now.
    #[inline]
    fn fits_with(&self, size: u32, more_pkts: u64, more_bytes: u64) -> bool {
        match self.capacity {
            Amount::Packets(n) => self.q_pkts + more_pkts < n,
            Amount::Bytes(b) => self.q_bytes + more_bytes + size as u64 <= b,
        }
    }

    /// Tail drop for an arrival at `now` (called after `sync(now)`).
    ///
    /// A packet that left the queue for the wire at this very picosecond made room, so the
    /// arrival fits in its place. But which of the two came first is a matter of clocks that
    /// real links never share exactly (two "equal" rates differ by parts per million): if the
    /// arrival fits only thanks to that packet, a fair coin from the port's stream decides
    /// whether it came before it (and finds the buffer full) or after. Without the coin, a flow
    /// paced at exactly the port's rate would arrive just as each slot frees and hold a full
    /// drop-tail queue forever, locking every other flow out (the phase effect that ns-2 breaks
    /// with random `overhead_`, Floyd & Jacobson 1992).
    #[inline]
    fn admits(&mut self, size: u32, now: Time) -> bool {
        if !self.fits_with(size, 0, 0) {
            return false;
        }
        let Some(s) = self.started.checked_sub(1).map(|i| self.slots[i]) else { return true };
        if s.start != now || !s.waited || self.fits_with(size, 1, s.size as u64) {
            return true;
        }
        rand::Rng::random_bool(&mut self.rng, 0.5)
    }

    /// When the number of waiting packets drops below `limit` (a packet starts transmission);
    /// None if it already is below.
    pub fn time_waiting_below(&self, limit: u64) -> Option<Time> {
        if self.q_pkts < limit {
            return None;
        }
        let i = self.started + (self.q_pkts - limit) as usize;
        Some(self.slots[i].start)
    }

    /// When a data packet (or L2 data frame) accepted at `now` would start its transmission
    /// (FIFO at a fixed rate, after its release with a host jitter): the NIC hardware timestamp of
    /// a delay-based sender. With a jitter the release is drawn here, for the packet enqueued next.
    #[inline]
    pub fn next_start(&mut self, now: Time) -> Time {
        if self.tx_jitter_ps == 0 {
            return now.max(self.last_end);
        }
        // The release drawn here belongs to the packet enqueued next: a caller stamps a packet and
        // enqueues it on this port at once (host NICs are unbounded: never dropped).
        debug_assert!(self.pending_release.is_none(), "a stamped packet was not enqueued");
        let r = self.release(now);
        self.pending_release = Some(r);
        r.max(self.last_end)
    }

    /// Memory that grows with the packets the port holds, bytes: what it holds now
    /// ([`Self::held_bytes`]), with a ring that `more` packets would fill counted as doubled (a
    /// ring doubles when full and never shrinks: it may double before the next look). So it is at
    /// most twice `held_bytes`.
    pub fn growing_bytes(&self, row_bytes: usize, more: usize) -> usize {
        let may_double = |len: usize, cap: usize, entry: usize| if len + more >= cap { cap * entry } else { 0 };
        self.held_bytes(row_bytes)
            + may_double(self.slots.len(), self.slots.capacity(), std::mem::size_of::<Slot>())
            + may_double(self.pipe.len(), self.pipe.capacity(), std::mem::size_of::<(Time, Packet)>())
    }

    /// Memory that grows with the packets the port holds, as it is now: its rings and its
    /// queue-length histogram (one entry per length seen, each a row of the `queue_hist` table of
    /// `row_bytes`), bytes.
    pub fn held_bytes(&self, row_bytes: usize) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.pipe.capacity() * std::mem::size_of::<(Time, Packet)>()
            + self.qstats.hist_ps.as_ref().map_or(0, |h| h.len() * (std::mem::size_of::<u64>() + row_bytes))
    }

    /// Free the packets the port holds (queued, on the wire, propagating) and its rings, once the
    /// results have taken its statistics: the run ends with them (a memory stop by the queues
    /// leaves its rings at what the bound allows, and the result tables come on top).
    pub fn release_packets(&mut self) {
        self.slots = Ring::new();
        self.pipe = Ring::new();
        self.evicted = Vec::new();
    }

    /// Packets accepted and not yet arrived at the next node (queued, on the wire, propagating).
    pub fn in_pipe(&self) -> u64 {
        self.pipe.len() as u64
    }

    /// Prefetch the port's fields (every cache line of the struct).
    #[inline]
    pub fn prefetch_fields(&self) {
        crate::prefetch::bytes(self as *const Port, std::mem::size_of::<Port>());
    }

    /// Prefetch the pipe's head entry (what an arrival reads).
    #[inline]
    pub fn prefetch_head(&self) {
        if let Some(p) = self.pipe.ptr(0) {
            crate::prefetch::value(p);
        }
    }

    /// Prefetch the ring entries an enqueue reads and writes: the oldest unsent packet's slot, the
    /// next to start, and where the new packet's slot and pipe entry go.
    #[inline]
    pub fn prefetch_rings(&self) {
        if let Some(p) = self.slots.ptr(0) {
            crate::prefetch::value(p);
        }
        if let Some(p) = self.slots.ptr(self.started) {
            crate::prefetch::value(p);
        }
        if let Some(p) = self.slots.back_ptr() {
            crate::prefetch::value(p);
        }
        if let Some(p) = self.pipe.back_ptr() {
            crate::prefetch::value(p);
        }
    }

    /// Arrival time of the pipe's head at the next node.
    #[inline]
    pub fn next_arrival(&self) -> Option<Time> {
        self.pipe.front().map(|(t, _)| *t)
    }

    /// The pipe's head and its arrival time.
    #[inline]
    pub fn head(&self) -> Option<&(Time, Packet)> {
        self.pipe.front()
    }

    /// The `i`-th packet in the pipe (0 = the head) with its arrival time, if there is one.
    #[inline]
    pub fn pipe_at(&self, i: usize) -> Option<&(Time, Packet)> {
        (i < self.pipe.len()).then(|| &self.pipe[i])
    }

    /// Arrival time of the first packet in the pipe for which `f` holds.
    pub fn first_arrival_where(&self, f: impl Fn(&Packet) -> bool) -> Option<Time> {
        self.pipe.iter().find(|(_, p)| f(p)).map(|(t, _)| *t)
    }

    /// Packets in the pipe for which `f` holds.
    pub fn count_where(&self, f: impl Fn(&Packet) -> bool) -> u64 {
        self.pipe.iter().filter(|(_, p)| f(p)).count() as u64
    }

    /// Whether the discipline may drop packets already queued (CHOKe), which moves the arrival
    /// times of the packets behind them.
    pub fn evicts(&self) -> bool {
        matches!(self.aqm, Aqm::Choke(_))
    }

    /// Take the pipe's head (it has arrived at the next node).
    #[inline]
    pub fn pop_arrival(&mut self) -> Option<Packet> {
        self.pipe.pop_front().map(|(_, p)| p)
    }

    /// Take back the packet just accepted (the pipe's last) with its arrival time: a partitioned
    /// run hands it to the world that owns the next node (`sim/partition.rs`).
    #[inline]
    pub fn pop_back_arrival(&mut self) -> (Time, Packet) {
        self.pipe.pop_back().expect("a packet was just accepted")
    }

    /// A packet another world sent over this link, arriving at `to` at `arrival` (after those in
    /// the pipe): the pipe alone carries it (its queueing was the sender world's).
    #[inline]
    pub fn push_arrival(&mut self, arrival: Time, pkt: Packet) {
        debug_assert!(self.pipe.back().is_none_or(|&(t, _)| t <= arrival));
        self.pipe.push_back((arrival, pkt));
    }

    /// Queued packets the discipline dropped (CHOKe victims) since the last call; the simulator
    /// counts them as dropped. They are no longer in the pipe.
    pub fn take_evicted(&mut self) -> std::vec::Drain<'_, Packet> {
        self.evicted.drain(..)
    }

    /// Index in the pipe of waiting packet `w` (0 = the next to start transmission).
    #[inline]
    fn pipe_index_of_waiting(&self, w: usize) -> usize {
        self.pipe.len() - self.slots.len() + self.started + w
    }

    /// Remove waiting packet `w` (0 = the next to start) at the current instant: the packets
    /// behind it move forward by its serialisation time, exactly, and so do their arrival times.
    fn remove_waiting(&mut self, w: usize) -> Packet {
        let j = self.started + w;
        let pj = self.pipe_index_of_waiting(w);
        let gone = self.slots.remove(j).expect("waiting packet index within the queue");
        let (_, pkt) = self.pipe.remove(pj).expect("every unsent packet is in the pipe");
        self.q_pkts -= 1;
        self.q_bytes -= gone.size as u64;
        // A waiting packet starts when its predecessor (on the wire or waiting) ends, so j >= 1.
        let prev = self.slots[j - 1];
        let (mut end, mut carry) = (prev.end, prev.carry);
        for k in j..self.slots.len() {
            let (tx, c) = self.tx_time_carry(self.slots[k].size, carry);
            let s = &mut self.slots[k];
            s.start = end;
            s.end = end + tx;
            s.carry = c;
            end = s.end;
            carry = c;
            self.pipe[pj + (k - j)].0 = end + self.delay;
        }
        self.last_end = end;
        self.tx_carry = carry;
        pkt
    }

    /// CHOKe on an arrival (before the buffer limit, as Linux `sch_choke` does): draws among the
    /// waiting packets, penalises the victims of a match (CE-mark or evict), and returns the
    /// verdict on the arrival.
    #[inline(never)] // off the hot path of the other disciplines
    fn choke_admit(&mut self, pkt: &Packet, view: QueueView, now: Time) -> Verdict {
        let Aqm::Choke(c) = &mut self.aqm else { unreachable!("choke_admit on a CHOKe port only") };
        let first = self.pipe.len() - self.slots.len() + self.started;
        let pipe = &self.pipe;
        let verdict = c.admit(view, flow_key(pkt), pkt.ect, now, &mut self.rng, |w| flow_key(&pipe[first + w].1));
        let victims = c.take_victims();
        // Decreasing order: removing one does not move the waiting packets in front of it.
        for &w in &victims {
            let i = self.pipe_index_of_waiting(w);
            let Aqm::Choke(c) = &self.aqm else { unreachable!() };
            match c.penalty(self.pipe[i].1.ect) {
                Verdict::Mark => {
                    let p = &mut self.pipe[i].1;
                    if !p.ce {
                        p.ce = true;
                        self.counts.marks += 1;
                    }
                }
                _ => {
                    let p = self.remove_waiting(w);
                    self.counts.drops += 1;
                    self.counts.evictions += 1;
                    self.evicted.push(p);
                }
            }
        }
        if let Aqm::Choke(c) = &mut self.aqm {
            c.put_victims(victims);
        }
        verdict
    }

    /// An arriving packet at `now`: buffer limit (tail drop), then the discipline; RED and CHOKe
    /// decide first and the buffer limit follows, so their average and count see every arrival
    /// (ns-2 `red.cc` `enque`: the estimator and `++count` run first, `qlen >= qlim` then forces
    /// the drop and resets the count). An accepted (possibly CE-marked) packet enters the pipe;
    /// returns its arrival time at the next node, or None if it was dropped. Queued packets CHOKe
    /// drops are handed over by [`Port::take_evicted`].
    pub fn enqueue(&mut self, mut pkt: Packet, now: Time) -> Option<Time> {
        self.sync(now);
        self.counts.arrivals += 1;
        let idle = self.slots.is_empty();
        let view = QueueView { packets: self.q_pkts, bytes: self.q_bytes, idle_since: idle.then_some(self.last_end) };
        let verdict = if self.aqm.keeps_average() {
            let v = if matches!(self.aqm, Aqm::Choke(_)) {
                self.integrate_to(now); // victims leave the queue at `now`
                self.choke_admit(&pkt, view, now)
            } else {
                self.aqm.admit(view, pkt.ect, now, &mut self.rng)
            };
            if v != Verdict::Drop && !self.admits(pkt.size, now) {
                self.aqm.on_tail_drop();
                Verdict::Drop
            } else {
                v
            }
        } else {
            if !self.admits(pkt.size, now) {
                self.counts.drops += 1;
                return None;
            }
            self.aqm.admit(view, pkt.ect, now, &mut self.rng)
        };
        match verdict {
            Verdict::Drop => {
                self.counts.drops += 1;
                return None;
            }
            Verdict::Mark => {
                pkt.ce = true;
                self.counts.marks += 1;
            }
            Verdict::Enqueue => {}
        }
        // Back-to-back on the previous packet: carry its serialisation remainder; after an idle
        // gap the link starts afresh on a whole picosecond. A host's data waits for its release.
        let ready =
            if self.tx_jitter_ps > 0 && matches!(pkt.kind, Kind::Data | Kind::Frame) { self.release(now) } else { now };
        let start = ready.max(self.last_end);
        let carry = if start == self.last_end { self.tx_carry } else { 0 };
        let (tx, carry) = self.tx_time_carry(pkt.size, carry);
        self.tx_carry = carry;
        let end = start + tx;
        self.slots.push_back(Slot { start, end, size: pkt.size, waited: start > now, carry });
        self.last_end = end;
        if start > now {
            self.integrate_to(now);
            self.q_pkts += 1;
            self.q_bytes += pkt.size as u64;
        } else {
            self.started += 1; // straight onto the wire
        }
        let arrival = end + self.delay;
        self.pipe.push_back((arrival, pkt));
        Some(arrival)
    }

    /// Statistics closed at `now` (call `advance(now)` first): the packet on the wire counts for
    /// its part of [warmup, now).
    pub fn stats_at(&self, now: Time) -> PortStats {
        let mut queue = self.qstats.clone();
        if let Some(s) = self.slots.front() {
            if s.start < now {
                queue.busy_ps += self.busy_after_warmup(s.start, now);
            }
        }
        PortStats {
            whole_run: self.counts,
            after_warmup: self.counts_at_warmup.map_or(PortCounts::default(), |w| self.counts - w),
            queue,
            span_ps: now.0.saturating_sub(self.warmup.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::DropTail;
    use crate::packet::Kind;
    use crate::rng::{stream, Stream};

    const US: u64 = 1_000_000;

    fn port(rate_bps: u64, capacity: Amount, warmup: Time) -> Port {
        let rng = stream(1, Stream::Port, 0);
        Port::new(0, 1, Rate(rate_bps), Time(0), capacity, Aqm::DropTail(DropTail), rng, warmup)
    }

    fn pkt(size: u32) -> Packet {
        Packet {
            kind: Kind::Data,
            flow: 0,
            src: 0,
            dst: 1,
            size,
            seq: 0,
            ect: false,
            ce: false,
            ece: false,
            ts: Time(0),
            aux: 0,
        }
    }

    #[test]
    fn a_host_jitter_delays_data_not_the_wire_and_not_acks() {
        // 1 Gbps: 1500 B take 12 us; J = 3 us. Each data packet is released U[0, J] after its
        // arrival or the previous release (chained), then queues for the wire.
        let (tx, j) = (12 * US, 3 * US);
        // An idle link each time (one packet every 40 us): the start is the release, within
        // [arrival, arrival + J], spread over it (a seeded uniform draw).
        let mut p = port(1_000_000_000, Amount::Packets(1000), Time(0));
        p.set_tx_jitter(j);
        let mut delays = Vec::new();
        for k in 0..200u64 {
            let now = Time(k * 40 * US);
            let start = p.enqueue(pkt(1500), now).expect("room") - p.delay - Time(tx);
            assert!(start >= now && start <= now + Time(j), "start {start:?} at {now:?}");
            delays.push((start - now).0);
        }
        let (lo, hi) = (*delays.iter().min().unwrap(), *delays.iter().max().unwrap());
        assert!(lo < j / 10 && hi > 9 * j / 10, "delays {lo}..{hi} ps");
        // A backlog (one packet every 5 us): the delays run beside the transmissions, so the wire
        // never idles after the first packet: 200 packets end at the first start + 200 x 12 us
        // (a delay after each transmission had capped the NIC at T/(T + J/2): a review).
        let mut p = port(1_000_000_000, Amount::Packets(1000), Time(0));
        p.set_tx_jitter(j);
        let first = p.enqueue(pkt(1500), Time(0)).expect("room") - p.delay - Time(tx);
        let mut last = Time(0);
        for k in 1..200u64 {
            last = p.enqueue(pkt(1500), Time(k * 5 * US)).expect("room") - p.delay;
        }
        assert_eq!(last, first + Time(200 * tx));
        // The releases are chained: a burst of 50 handed over at once with J = 100 us (> T) is
        // released one after another, U[0, J] apart (~50 us on average): the last ends near
        // 50 x 50 us, not within J + 50 x 12 us = 0.7 ms as unchained releases would.
        let mut p = port(1_000_000_000, Amount::Packets(1000), Time(0));
        p.set_tx_jitter(100 * US);
        let last = (0..50).map(|_| p.enqueue(pkt(1500), Time(0)).expect("room")).last().expect("50") - p.delay;
        assert!(last > Time(1_500 * US) && last < Time(4_000 * US), "last end {last:?}");
        // An ACK is not delayed; the NIC timestamp of the next data packet is its real start.
        let mut p = port(1_000_000_000, Amount::Packets(1000), Time(0));
        p.set_tx_jitter(j);
        let mut ack = pkt(40);
        ack.kind = Kind::Ack;
        let now = Time(US);
        assert_eq!(p.enqueue(ack, now).expect("room") - p.delay, now + Time(320_000));
        let now = Time(100 * US);
        let stamped = p.next_start(now);
        let start = p.enqueue(pkt(1500), now).expect("room") - p.delay - Time(tx);
        assert_eq!(stamped, start);
        assert!(start >= now && start <= now + Time(j));
        // An L2 data frame is delayed as a data packet is (an audit: frames left out passed every
        // test): idle link, its start within [now, now + J], and over many frames not always now.
        let mut p = port(1_000_000_000, Amount::Packets(1000), Time(0));
        p.set_tx_jitter(j);
        let mut late = 0;
        for k in 0..50u64 {
            let now = Time(k * 40 * US);
            let mut frame = pkt(1000);
            frame.kind = Kind::Frame;
            let start = p.enqueue(frame, now).expect("room") - p.delay - Time(8 * US);
            assert!(start >= now && start <= now + Time(j), "frame start {start:?} at {now:?}");
            late += (start > now) as u32;
        }
        assert!(late > 40, "{late} of 50 frames delayed");
        // Without a jitter, the start is the earliest, as before the option existed.
        let mut p = port(1_000_000_000, Amount::Packets(1000), Time(0));
        assert_eq!(p.enqueue(pkt(1500), now).expect("room") - p.delay, now + Time(tx));
    }

    #[test]
    fn cached_serialisation_equals_the_division() {
        // Rates that do and do not divide 8 x 10^12 x bytes, sizes alternating through the
        // two-entry cache, carries up to rate - 1.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for rate in [1_000u64, 3_000_000_000, 10_000_000_000, 25_000_000_007, 10_000_000_000_000] {
            let mut p = port(rate, Amount::Packets(10), Time(0));
            for _ in 0..10_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let bytes = [40u32, 1500, 64, 9000, 1][(x % 5) as usize];
                let carry = (x >> 8) % rate;
                assert_eq!(p.tx_time_carry(bytes, carry), p.rate.tx_time_carry(bytes, carry), "{rate} {bytes} {carry}");
            }
        }
    }

    #[test]
    fn growth_counted_bounds_what_the_memory_check_walks() {
        // The two facts World::check_memory_now skips its walk on: a port's count is at most
        // twice what it holds (whatever `more`), and what it holds grew by at most what this
        // thread's counter grew by.
        let mut p = port(1_000_000_000, Amount::Packets(10_000), Time(0));
        p.keep_histogram();
        let row = 64;
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut now = Time(0);
        for step in 0..3_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (held0, grown0) = (p.held_bytes(row) as u128, grown_bytes(row));
            // Bursts of up to 40 packets at one instant, then up to 50 us of draining.
            for _ in 0..x % 40 {
                p.enqueue(pkt(1500), now);
            }
            now += Time((x >> 8) % (50 * US));
            p.advance(now);
            while p.next_arrival().is_some_and(|t| t <= now) {
                p.pop_arrival();
            }
            let held = p.held_bytes(row) as u128;
            assert!(held - held0 <= grown_bytes(row) - grown0, "step {step}: held grew by {}", held - held0);
            for more in [0, 1, 7, 1 << 16] {
                assert!(p.growing_bytes(row, more) <= 2 * p.held_bytes(row), "step {step}, more {more}");
            }
        }
        assert!(p.held_bytes(row) > 0);
    }

    #[test]
    fn growth_on_another_thread_is_not_counted_on_this_one() {
        // A world's memory checks read the growth of its own thread while it runs there
        // (`World::track_growth`): ports growing on other threads (another partition's world, a
        // run beside it in a thread pool) must not move it, or where a run stops would depend on
        // their timing. The process-wide count had counted them.
        let grow = || {
            let mut p = port(1_000_000_000, Amount::Packets(10_000), Time(0));
            p.keep_histogram();
            for i in 0..1_000 {
                p.enqueue(pkt(1500), Time(i));
            }
            p.held_bytes(64)
        };
        let before = grown_bytes(64);
        let held_there = std::thread::spawn(grow).join().expect("the other thread");
        assert!(held_there > 0);
        assert_eq!(grown_bytes(64), before, "another thread's growth moved this thread's count");
        let held_here = grow();
        assert!(grown_bytes(64) - before >= held_here as u128);
    }

    #[test]
    fn pipe_at_is_the_packet_that_many_arrivals_later() {
        // 1 Gbps: packets of 100, 200, 300 B leave back to back, and arrive in that order.
        let mut p = port(1_000_000_000, Amount::Packets(10), Time(0));
        let arrivals: Vec<Time> =
            [100u32, 200, 300].iter().map(|&b| p.enqueue(pkt(b), Time(0)).expect("room")).collect();
        let ahead: Vec<(Time, u32)> = (0..4).filter_map(|i| p.pipe_at(i)).map(|(t, q)| (*t, q.size)).collect();
        assert_eq!(ahead, vec![(arrivals[0], 100), (arrivals[1], 200), (arrivals[2], 300)]);
        assert_eq!(p.pop_arrival().map(|q| q.size), Some(100));
        assert_eq!(p.pipe_at(1).map(|(t, q)| (*t, q.size)), Some((arrivals[2], 300)));
        assert!(p.pipe_at(2).is_none());
    }

    #[test]
    fn an_arrival_as_the_slot_it_needs_frees_is_a_fair_coin() {
        // Buffer of one waiting packet, 1500 B at 1 Gbps (12 us each): A on the wire until 12 us,
        // B waiting (full). C arrives at 12 us, just as B leaves the queue for the wire.
        let outcome = |seed: u64, at: Time| {
            let rng = stream(seed, Stream::Port, 0);
            let mut p = Port::new(
                0,
                1,
                Rate(1_000_000_000),
                Time(0),
                Amount::Packets(1),
                Aqm::DropTail(DropTail),
                rng,
                Time(0),
            );
            p.enqueue(pkt(1500), Time(0)).unwrap();
            p.enqueue(pkt(1500), Time(0)).unwrap();
            p.enqueue(pkt(1500), at).is_some()
        };
        let tie = Time(12 * US);
        // Strictly before or after the slot frees, no coin: dropped, accepted.
        assert!((0..200).all(|s| !outcome(s, Time(tie.0 - 1))));
        assert!((0..200).all(|s| outcome(s, Time(tie.0 + 1))));
        // At the tie, accepted about half the time: 2000 fair coins, mean 1000, sd 22.4; the band
        // is +-100 (4.5 sd), decided before the run.
        let accepted = (0..2000).filter(|&s| outcome(s, tie)).count();
        assert!((900..=1100).contains(&accepted), "{accepted} of 2000 ties accepted");
    }

    #[test]
    fn warmup_mid_packet_counts_only_the_part_after_warmup() {
        // 1500 B at 1 Gbps = 12 us on the wire, from t = 0. Warm-up ends at 6 us, we look at 10 us:
        // the link was busy for all 4 us after warm-up -> utilization exactly 1 (it read 0).
        let mut p = port(1_000_000_000, Amount::Packets(10), Time(6 * US));
        p.enqueue(pkt(1500), Time(0)).unwrap();
        p.advance(Time(6 * US));
        p.on_warmup();
        p.advance(Time(10 * US));
        let st = p.stats_at(Time(10 * US));
        assert_eq!(st.span_ps, 4 * US);
        assert_eq!(st.queue.busy_ps, 4 * US);
        // At 20 us the packet ended at 12 us: busy 6 us of a 14 us span; its bytes count after
        // warm-up (it ended after warm-up) in tx_bytes.
        p.advance(Time(20 * US));
        let st = p.stats_at(Time(20 * US));
        assert_eq!((st.span_ps, st.queue.busy_ps), (14 * US, 6 * US));
        assert_eq!(st.after_warmup.tx_bytes, 1500);
    }

    #[test]
    fn queue_level_held_at_warmup_counts_in_min_max_mean_and_histogram() {
        // 15 packets at t = 0 on a 1 Gbps link: one on the wire (until 12 us) and 14 waiting. From
        // warm-up (1 us) to 5 us nothing changes: min = max = mean = 14 (it read q_max 0, q_min NaN).
        let mut p = port(1_000_000_000, Amount::Packets(100), Time(US));
        p.keep_histogram();
        for _ in 0..15 {
            p.enqueue(pkt(1500), Time(0)).unwrap();
        }
        p.advance(Time(US));
        p.on_warmup();
        p.advance(Time(5 * US));
        let st = p.stats_at(Time(5 * US));
        assert_eq!((st.queue.min_pkt, st.queue.max_pkt), (Some(14), Some(14)));
        assert_eq!(st.queue.area_pkt_ps, 14 * 4 * US as u128);
        assert_eq!(st.queue.area_bytes_ps, 14 * 1500 * 4 * US as u128);
        let h = st.queue.hist_ps.unwrap();
        assert_eq!(h.len(), 15);
        assert_eq!(h[14], 4 * US);
        assert_eq!(h.iter().sum::<u64>(), 4 * US);
        // Later: at 12 us the second packet starts (13 waiting), at 24 us the third (12 waiting).
        // Over [1, 30) us: 14 for 11 us, 13 for 12 us, 12 for 6 us.
        p.advance(Time(30 * US));
        let st = p.stats_at(Time(30 * US));
        assert_eq!((st.queue.min_pkt, st.queue.max_pkt), (Some(12), Some(14)));
        assert_eq!(st.queue.area_pkt_ps, (14 * 11 + 13 * 12 + 12 * 6) as u128 * US as u128);
        let h = st.queue.hist_ps.unwrap();
        assert_eq!((h[12], h[13], h[14]), (6 * US, 12 * US, 11 * US));
    }

    #[test]
    fn counters_before_warmup_are_not_post_warmup() {
        let mut p = port(1_000_000_000, Amount::Packets(1), Time(100 * US));
        // Two at once into a 1-packet buffer: the first goes on the wire, the second waits, the
        // third is dropped (before warm-up); after warm-up one more drop.
        for _ in 0..3 {
            p.enqueue(pkt(1500), Time(0));
        }
        p.advance(Time(100 * US));
        p.on_warmup();
        p.enqueue(pkt(1500), Time(100 * US)); // empty again: accepted, on the wire
        p.enqueue(pkt(1500), Time(100 * US)); // waits
        p.enqueue(pkt(1500), Time(100 * US)); // dropped
        let st = p.stats_at(Time(100 * US));
        assert_eq!((st.whole_run.drops, st.after_warmup.drops), (2, 1));
        assert_eq!((st.whole_run.arrivals, st.after_warmup.arrivals), (6, 3));
    }

    #[test]
    fn busy_time_equals_bits_sent_over_rate_at_odd_rates() {
        // 300 back-to-back packets of 1501 B at 133 Gbps: per-packet rounding would drift by up to
        // 300 ps; with the carried remainder the busy period is floor(total bits / rate) exactly.
        let rate = 133_000_000_000u64;
        let mut p = port(rate, Amount::Packets(1000), Time(0));
        p.on_warmup();
        for _ in 0..300 {
            p.enqueue(pkt(1501), Time(0)).unwrap();
        }
        let exact_ps = (300u128 * 1501 * 8 * 1_000_000_000_000) / rate as u128;
        let end = Time(10 * exact_ps as u64);
        p.advance(end);
        let st = p.stats_at(end);
        assert_eq!(st.queue.busy_ps as u128, exact_ps);
        assert_eq!(st.after_warmup.tx_bytes, 300 * 1501);
    }
    // ---- CHOKe: removing queued packets ----

    use crate::aqm::red::Params;
    use crate::aqm::{Choke, MatchRule};
    use rand::Rng as _;

    /// A CHOKe port whose average is the instantaneous queue (w_q = 1), drawing from any non-empty
    /// queue (min_th = 0) and never marking by RED (max_p ~ 0, max_th far away).
    fn choke_port(rate_bps: u64, cap: u64, m: u32, rule: MatchRule, ecn: bool) -> Port {
        let p = Params { min_th: 0.0, max_th: 1e6, max_p: 1e-12, w_q: 1.0, gentle: false, ecn, wait: true };
        let aqm = Aqm::Choke(Choke::new(p, m, rule, 1500, Rate(rate_bps)));
        let rng = stream(7, Stream::Port, 3);
        Port::new(0, 1, Rate(rate_bps), Time(5 * US), Amount::Packets(cap), aqm, rng, Time(0))
    }

    fn fpkt(flow: u32, seq: u64, size: u32, ect: bool) -> Packet {
        Packet { flow, seq, size, ect, ..pkt(size) }
    }

    /// (arrival time, flow, seq, ce) of everything in the pipe, in order (empties it).
    fn drain(p: &mut Port) -> Vec<(Time, u32, u64, bool)> {
        let mut out = Vec::new();
        while let Some(t) = p.next_arrival() {
            let k = p.pop_arrival().unwrap();
            out.push((t, k.flow, k.seq, k.ce));
        }
        out
    }

    #[test]
    fn evicting_a_queued_packet_shifts_later_departures_exactly() {
        // 3 Gbps: 1501 B take 4002.67 ns, so the carried remainder matters. At t = 0 packet 0 goes
        // on the wire and packets 1..5 (flows 1..5, odd sizes) wait. At t = 3 us a packet of flow 3
        // arrives; m = 200 draws with rule Any find flow 3's waiting packet (missed with probability
        // (4/5)^200), and without ECN both are dropped.
        let sizes = [1501u32, 1000, 1499, 1501, 777, 1333];
        let mut p = choke_port(3_000_000_000, 100, 200, MatchRule::Any, false);
        for (i, &sz) in sizes.iter().enumerate() {
            p.enqueue(fpkt(i as u32 + 10 * (i == 0) as u32, i as u64, sz, false), Time(0)).unwrap();
        }
        assert_eq!(p.q_pkts(), 5);
        let t = Time(3 * US);
        assert!(p.enqueue(fpkt(3, 99, 1200, false), t).is_none(), "the matching arrival is dropped");
        let gone: Vec<u64> = p.take_evicted().map(|k| k.seq).collect();
        assert_eq!(gone, vec![3], "the waiting packet of flow 3 is the victim");
        let c = p.counts();
        assert_eq!((c.arrivals, c.drops, c.evictions), (7, 2, 1));
        assert_eq!((p.q_pkts(), p.q_bytes()), (4, (1000 + 1499 + 777 + 1333) as u64));
        assert_eq!(p.q_bytes(), p.waiting_bytes_recount());
        // The schedule is exactly that of a port that never got packet 3.
        let mut r = port(3_000_000_000, Amount::Packets(100), Time(0));
        r.delay = Time(5 * US);
        for (i, &sz) in sizes.iter().enumerate().filter(|(i, _)| *i != 3) {
            r.enqueue(fpkt(i as u32 + 10 * (i == 0) as u32, i as u64, sz, false), Time(0)).unwrap();
        }
        let (a, b) = (drain(&mut p), drain(&mut r));
        assert_eq!(a, b);
        assert_eq!(a.iter().map(|x| x.2).collect::<Vec<_>>(), vec![0, 1, 2, 4, 5]);
        // The link's busy time is that of the 5 packets sent, and the queue integral is exact:
        // q = 5 on [0, 3 us) less the starts before 3 us (packet 0 ends at 4.0027 us, so none).
        p.advance(Time(US * 1000));
        let st = p.stats_at(Time(US * 1000));
        let bits: u64 = [1501u64, 1000, 1499, 777, 1333].iter().sum::<u64>() * 8;
        assert_eq!(st.queue.busy_ps, bits * 1_000_000_000_000 / 3_000_000_000);
        assert_eq!(st.whole_run.tx_pkts + st.whole_run.drops, st.whole_run.arrivals);
    }

    #[test]
    fn a_marked_victim_stays_queued_and_is_counted_once() {
        // ECN on, ECN-capable packets: the matching arrival and its victim are CE-marked, nothing
        // leaves the queue; a victim that already carried CE is not counted again.
        let mut p = choke_port(1_000_000_000, 100, 200, MatchRule::Any, true);
        p.enqueue(fpkt(9, 0, 1500, true), Time(0)).unwrap();
        p.enqueue(fpkt(1, 1, 1500, true), Time(0)).unwrap();
        p.enqueue(fpkt(2, 2, 1500, true), Time(0)).unwrap();
        assert!(p.enqueue(fpkt(2, 3, 1500, true), Time(0)).is_some());
        assert_eq!(p.take_evicted().count(), 0);
        assert_eq!((p.counts().marks, p.counts().drops, p.q_pkts()), (2, 0, 3));
        // The next arrival of flow 2 draws packets 2 or 3 (both CE already, so one new mark: its own).
        assert!(p.enqueue(fpkt(2, 4, 1500, true), Time(0)).is_some());
        assert_eq!(p.counts().marks, 3);
        let out = drain(&mut p);
        let ce: Vec<(u64, bool)> = out.iter().map(|x| (x.2, x.3)).collect();
        assert_eq!(ce, vec![(0, false), (1, false), (2, true), (3, true), (4, true)]);
        // A packet that is not ECN-capable is dropped instead, even with ECN on.
        let mut p = choke_port(1_000_000_000, 100, 200, MatchRule::Any, true);
        p.enqueue(fpkt(9, 0, 1500, true), Time(0)).unwrap();
        p.enqueue(fpkt(5, 1, 1500, false), Time(0)).unwrap();
        assert!(p.enqueue(fpkt(5, 2, 1500, true), Time(0)).is_some(), "the ECN-capable arrival is marked");
        assert_eq!(p.take_evicted().map(|k| k.seq).collect::<Vec<_>>(), vec![1]);
        assert_eq!((p.counts().marks, p.counts().evictions, p.q_pkts()), (1, 1, 1));
    }

    #[test]
    fn random_choke_traffic_keeps_the_port_consistent() {
        // 20 000 arrivals of 4 flows at random times into a 20-packet CHOKe queue (m = 3, rule Any,
        // ECN on, half the packets ECN-capable). After every arrival: bytes = sum of the waiting
        // packets, waiting packets back to back, arrivals = sent + dropped + unsent, and the pipe
        // in time order. At the end: every packet was delivered, dropped at arrival or evicted,
        // exactly once, and no evicted packet came out of the pipe.
        let mut p = choke_port(1_000_000_000, 20, 3, MatchRule::Any, true);
        let mut rng = stream(11, Stream::Flow, 0);
        let mut now = Time(0);
        let (mut delivered, mut evicted, mut refused) = (Vec::new(), Vec::new(), 0u64);
        for seq in 0..20_000u64 {
            now += Time(rng.random_range(0..14_000_000)); // mean 7 us: the 12 us link is overloaded
            let flow = if rng.random::<f64>() < 0.6 { 0 } else { rng.random_range(1..4) };
            let size = [1500u32, 40, 1000][rng.random_range(0..3)];
            let k = fpkt(flow, seq, size, rng.random::<bool>());
            while let Some(t) = p.next_arrival() {
                if t > now {
                    break;
                }
                delivered.push(p.pop_arrival().unwrap().seq);
            }
            if p.enqueue(k, now).is_none() {
                refused += 1;
            }
            evicted.extend(p.take_evicted().map(|k| k.seq));
            assert_eq!(p.q_bytes(), p.waiting_bytes_recount());
            let w: Vec<Slot> = p.slots.iter().skip(p.started.saturating_sub(1)).copied().collect();
            assert!(w.windows(2).all(|s| s[1].start == s[0].end), "waiting packets back to back");
            let c = p.counts();
            assert_eq!(c.arrivals, c.tx_pkts + c.drops + p.unsent());
            assert!(p.pipe.iter().zip(p.pipe.iter().skip(1)).all(|(a, b)| a.0 <= b.0));
        }
        delivered.extend(drain(&mut p).into_iter().map(|x| x.2));
        let c = p.counts();
        assert!(c.evictions > 100, "CHOKe evicted {} packets", c.evictions);
        assert_eq!(evicted.len() as u64, c.evictions);
        assert_eq!(delivered.len() as u64 + refused + c.evictions, 20_000);
        let d: std::collections::HashSet<u64> = delivered.iter().copied().collect();
        assert_eq!(d.len(), delivered.len());
        assert!(evicted.iter().all(|s| !d.contains(s)), "an evicted packet was delivered");
    }

    #[test]
    fn red_sees_the_arrivals_the_buffer_drops() {
        // ns-2 red.cc: the average and the count are updated for every arrival, then a full
        // buffer forces the drop (and restarts the count). With w_q = 1 the average is the queue
        // the last arrival found: an arrival refused at a full buffer of 20 packets found 20, so
        // the average is 20, not the 19 the last accepted arrival found. Arrivals at ~10 x the
        // link's rate fill the buffer; RED marks (ECN) between min_th 5 and max_th 15.
        let params = crate::aqm::red::Params {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 1.0,
            gentle: false,
            ecn: true,
            wait: true,
        };
        let red = Aqm::Red(crate::aqm::Red::new(params, 1500, Rate(1_000_000_000)));
        let mut p = Port::new(
            0,
            1,
            Rate(1_000_000_000),
            Time(0),
            Amount::Packets(20),
            red,
            stream(1, Stream::Port, 0),
            Time(0),
        );
        let mut k = pkt(1500);
        k.ect = true;
        let mut tail_drops = 0;
        for i in 0..400u64 {
            // ~1.23 us apart (no arrival at a departure's picosecond, where a coin decides which
            // came first); the link takes 12 us a packet.
            let now = Time(i * 1_234_567);
            while p.next_arrival().is_some_and(|t| t <= now) {
                p.pop_arrival();
            }
            // RED marks (ECN), so every drop is the buffer's.
            if p.enqueue(k, now).is_none() {
                tail_drops += 1;
                let Aqm::Red(r) = &p.aqm else { unreachable!() };
                assert_eq!(r.avg, 20.0, "arrival {i}: the refused arrival's queue is in the average");
            }
        }
        assert!(tail_drops > 300, "{tail_drops} tail drops");
    }
}
