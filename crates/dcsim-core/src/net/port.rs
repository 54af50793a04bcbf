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

/// Per-port counters. Time-based statistics cover [warmup, now).
#[derive(Clone, Copy, Debug, Default)]
pub struct PortStats {
    pub arrivals: u64,
    pub drops: u64,
    pub marks: u64,
    /// Bytes whose serialisation finished after warm-up.
    pub tx_bytes: u64,
    pub tx_pkts: u64,
    /// Integral of the queue length (packets) over time after warm-up, packet·ps.
    pub q_area_pkt_ps: u128,
    /// Time the link was idle after warm-up, ps.
    pub idle_ps: u64,
    /// Smallest queue length after warm-up (at every change), packets.
    pub q_min_pkt: Option<u64>,
    pub q_max_pkt: u64,
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
    /// Time up to which the queue-length integral is accounted.
    last_change: Time,
    warmup: Time,
    pub stats: PortStats,
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
            last_change: Time::ZERO,
            warmup,
            stats: PortStats::default(),
        }
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

    /// Account the queue-length integral on [last_change, t) at the current length.
    #[inline]
    fn integrate_to(&mut self, t: Time) {
        if t > self.warmup && t > self.last_change {
            let from = self.last_change.max(self.warmup);
            self.stats.q_area_pkt_ps += self.q_pkts as u128 * (t - from).0 as u128;
        }
        self.last_change = self.last_change.max(t);
    }

    #[inline]
    fn observe_len(&mut self, t: Time) {
        if t >= self.warmup {
            let q = self.q_pkts;
            self.stats.q_min_pkt = Some(self.stats.q_min_pkt.map_or(q, |m| m.min(q)));
            self.stats.q_max_pkt = self.stats.q_max_pkt.max(q);
        }
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
            self.observe_len(s.start);
        }
        while let Some(s) = self.slots.front() {
            if s.end > now {
                break;
            }
            let s = *s;
            if s.end > self.warmup {
                self.stats.tx_bytes += s.size as u64;
                self.stats.tx_pkts += 1;
            }
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
        self.stats.arrivals += 1;
        if !self.fits(pkt.size) {
            self.stats.drops += 1;
            return None;
        }
        let idle = self.slots.is_empty();
        let view = QueueView { packets: self.q_pkts, bytes: self.q_bytes, idle_since: idle.then_some(self.last_end) };
        match self.aqm.admit(view, pkt.ect, now, &mut self.rng) {
            Verdict::Drop => {
                self.stats.drops += 1;
                return None;
            }
            Verdict::Mark => {
                pkt.ce = true;
                self.stats.marks += 1;
            }
            Verdict::Enqueue => {}
        }
        if idle && now > self.warmup {
            self.stats.idle_ps += (now - self.last_end.max(self.warmup)).0;
        }
        let start = now.max(self.last_end);
        let end = start + self.rate.tx_time(pkt.size);
        self.slots.push_back(Slot { start, end, size: pkt.size });
        self.last_end = end;
        if start > now {
            self.q_pkts += 1;
            self.q_bytes += pkt.size as u64;
        } else {
            self.started += 1; // straight onto the wire
        }
        self.observe_len(now);
        let arrival = end + self.delay;
        self.pipe.push_back((arrival, pkt));
        Some(arrival)
    }

    /// Statistics with the time integrals closed at `now` (call `advance(now)` first).
    pub fn stats_at(&self, now: Time) -> PortStats {
        let mut s = self.stats;
        if self.slots.is_empty() && now > self.warmup {
            s.idle_ps += (now - self.last_end.max(self.warmup)).0;
        }
        s
    }
}
