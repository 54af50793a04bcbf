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
//! event heap stays as small as the number of ports and packets never move through it. (A
//! discipline that removes queued packets, such as CHOKe, must also shift the later departures.)

use std::collections::VecDeque;

use crate::aqm::{Aqm, QueueView, Verdict};
use crate::packet::{NodeId, Packet};
use crate::rng::Rng;
use crate::scenario::Amount;
use crate::units::{Rate, Time};

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
#[derive(Clone, Copy, Debug)]
struct Slot {
    start: Time,
    end: Time,
    size: u32,
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
    slots: VecDeque<Slot>,
    /// slots[..started] have started transmission (at most one of them is still on the wire).
    started: usize,
    /// Packets and bytes waiting (not yet started).
    q_pkts: u64,
    q_bytes: u64,
    /// End of the last accepted packet's transmission.
    last_end: Time,
    /// Accepted packets and their arrival times at `to`, in order.
    pipe: VecDeque<(Time, Packet)>,
    /// Remainder of the last serialisation time (see [`Rate::tx_time_carry`]), carried while the
    /// link stays busy.
    tx_carry: u64,
    /// Time up to which the queue-length statistics are accounted.
    last_change: Time,
    warmup: Time,
    counts: PortCounts,
    counts_at_warmup: Option<PortCounts>,
    qstats: QueueTimeStats,
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
            slots: VecDeque::new(),
            started: 0,
            q_pkts: 0,
            q_bytes: 0,
            last_end: Time::ZERO,
            pipe: VecDeque::new(),
            tx_carry: 0,
            last_change: Time::ZERO,
            warmup,
            counts: PortCounts::default(),
            counts_at_warmup: None,
            qstats: QueueTimeStats::default(),
        }
    }

    /// Keep a histogram of the time spent at each queue length (monitored ports).
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
            st.area_pkt_ps += q as u128 * dt as u128;
            st.area_bytes_ps += self.q_bytes as u128 * dt as u128;
            st.min_pkt = Some(st.min_pkt.map_or(q, |m| m.min(q)));
            st.max_pkt = Some(st.max_pkt.map_or(q, |m| m.max(q)));
            if let Some(h) = &mut st.hist_ps {
                if h.len() <= q as usize {
                    h.resize(q as usize + 1, 0);
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
    /// their exact start times), packets whose transmission ended leave the port.
    pub fn advance(&mut self, now: Time) {
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
        self.integrate_to(now);
    }

    #[inline]
    fn fits(&self, size: u32) -> bool {
        match self.capacity {
            Amount::Packets(n) => self.q_pkts < n,
            Amount::Bytes(b) => self.q_bytes + size as u64 <= b,
        }
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

    /// When a packet accepted at `now` would start its transmission (FIFO at a fixed rate):
    /// the NIC hardware timestamp of a delay-based sender.
    #[inline]
    pub fn next_start(&self, now: Time) -> Time {
        now.max(self.last_end)
    }

    /// Packets accepted and not yet arrived at the next node (queued, on the wire, propagating).
    pub fn in_pipe(&self) -> u64 {
        self.pipe.len() as u64
    }

    /// Arrival time of the pipe's head at the next node.
    #[inline]
    pub fn next_arrival(&self) -> Option<Time> {
        self.pipe.front().map(|(t, _)| *t)
    }

    /// Take the pipe's head (it has arrived at the next node).
    #[inline]
    pub fn pop_arrival(&mut self) -> Option<Packet> {
        self.pipe.pop_front().map(|(_, p)| p)
    }

    /// An arriving packet at `now`: buffer limit (tail drop), then the discipline. An accepted
    /// (possibly CE-marked) packet enters the pipe; returns its arrival time at the next node, or
    /// None if it was dropped.
    pub fn enqueue(&mut self, mut pkt: Packet, now: Time) -> Option<Time> {
        self.advance(now);
        self.counts.arrivals += 1;
        if !self.fits(pkt.size) {
            self.counts.drops += 1;
            return None;
        }
        let idle = self.slots.is_empty();
        let view = QueueView { packets: self.q_pkts, bytes: self.q_bytes, idle_since: idle.then_some(self.last_end) };
        match self.aqm.admit(view, pkt.ect, now, &mut self.rng) {
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
        // gap the link starts afresh on a whole picosecond.
        let start = now.max(self.last_end);
        let carry = if start == self.last_end { self.tx_carry } else { 0 };
        let (tx, carry) = self.rate.tx_time_carry(pkt.size, carry);
        self.tx_carry = carry;
        let end = start + tx;
        self.slots.push_back(Slot { start, end, size: pkt.size });
        self.last_end = end;
        if start > now {
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
        Packet { kind: Kind::Data, flow: 0, src: 0, dst: 1, size, seq: 0, ect: false, ce: false, ece: false, ts: Time(0) }
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
}
