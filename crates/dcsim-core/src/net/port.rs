//! A store-and-forward egress port: a FIFO queue with a capacity and a discipline, feeding a
//! link of fixed rate and propagation delay. The packet being serialised is not counted as
//! queued (ns-2 convention): the queue an arriving packet sees is what waits behind the link.

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
    /// Smallest queue length seen at a dequeue or enqueue after warm-up, packets.
    pub q_min_pkt: Option<u64>,
    pub q_max_pkt: u64,
}

pub struct Port {
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    capacity: Amount,
    pub aqm: Aqm,
    pub rng: Rng,
    queue: VecDeque<Packet>,
    q_bytes: u64,
    /// The packet on the wire (being serialised), if any.
    pub in_tx: Option<Packet>,
    /// Since when the link has been idle (None while busy).
    idle_since: Option<Time>,
    /// Last time the queue length changed (for the time integral).
    last_change: Time,
    warmup: Time,
    pub stats: PortStats,
}

/// What happened to an arriving packet.
pub enum Enqueued {
    /// The link was idle: serialise this packet now; its transmission ends at the given time.
    StartTx(Time),
    Queued,
    Dropped,
}

impl Port {
    #[allow(clippy::too_many_arguments)]
    pub fn new(from: NodeId, to: NodeId, rate: Rate, delay: Time, capacity: Amount, aqm: Aqm, rng: Rng, warmup: Time) -> Self {
        Port {
            from,
            to,
            rate,
            delay,
            capacity,
            aqm,
            rng,
            queue: VecDeque::new(),
            q_bytes: 0,
            in_tx: None,
            idle_since: Some(Time::ZERO),
            last_change: Time::ZERO,
            warmup,
            stats: PortStats::default(),
        }
    }

    #[inline]
    pub fn q_pkts(&self) -> u64 {
        self.queue.len() as u64
    }
    #[inline]
    pub fn q_bytes(&self) -> u64 {
        self.q_bytes
    }
    pub fn queued(&self) -> impl Iterator<Item = &Packet> {
        self.queue.iter()
    }

    /// Account the queue-length integral up to `now` (call before the length changes).
    #[inline]
    fn integrate(&mut self, now: Time) {
        if now > self.warmup {
            let from = self.last_change.max(self.warmup);
            self.stats.q_area_pkt_ps += self.queue.len() as u128 * (now - from).0 as u128;
        }
        self.last_change = now;
    }

    #[inline]
    fn observe_len(&mut self, now: Time) {
        if now >= self.warmup {
            let q = self.queue.len() as u64;
            self.stats.q_min_pkt = Some(self.stats.q_min_pkt.map_or(q, |m| m.min(q)));
            self.stats.q_max_pkt = self.stats.q_max_pkt.max(q);
        }
    }

    #[inline]
    fn fits(&self, size: u32) -> bool {
        match self.capacity {
            Amount::Packets(n) => self.queue.len() as u64 + 1 <= n,
            Amount::Bytes(b) => self.q_bytes + size as u64 <= b,
        }
    }

    /// An arriving packet: buffer limit (tail drop), then the discipline.
    pub fn enqueue(&mut self, mut pkt: Packet, now: Time) -> Enqueued {
        self.stats.arrivals += 1;
        if !self.fits(pkt.size) {
            self.stats.drops += 1;
            return Enqueued::Dropped;
        }
        let view = QueueView { packets: self.queue.len() as u64, bytes: self.q_bytes, idle_since: self.idle_since };
        match self.aqm.admit(view, pkt.ect, now, &mut self.rng) {
            Verdict::Drop => {
                self.stats.drops += 1;
                return Enqueued::Dropped;
            }
            Verdict::Mark => {
                pkt.ce = true;
                self.stats.marks += 1;
            }
            Verdict::Enqueue => {}
        }
        if let Some(idle) = self.idle_since.take() {
            // Link idle and queue empty: the packet goes straight onto the wire.
            if now > self.warmup {
                self.stats.idle_ps += (now - idle.max(self.warmup)).0;
            }
            let end = now + self.rate.tx_time(pkt.size);
            self.in_tx = Some(pkt);
            self.observe_len(now);
            return Enqueued::StartTx(end);
        }
        self.integrate(now);
        self.q_bytes += pkt.size as u64;
        self.queue.push_back(pkt);
        self.observe_len(now);
        Enqueued::Queued
    }

    /// The packet on the wire finished serialising at `now`. Returns it, and the end time of the
    /// next transmission if the queue was not empty.
    pub fn finish_tx(&mut self, now: Time) -> (Option<Packet>, Option<Time>) {
        let done = self.in_tx.take();
        if let Some(p) = &done {
            if now > self.warmup {
                self.stats.tx_bytes += p.size as u64;
                self.stats.tx_pkts += 1;
            }
        }
        self.integrate(now);
        match self.queue.pop_front() {
            Some(next) => {
                self.q_bytes -= next.size as u64;
                let end = now + self.rate.tx_time(next.size);
                self.in_tx = Some(next);
                self.observe_len(now);
                (done, Some(end))
            }
            None => {
                self.idle_since = Some(now);
                self.observe_len(now);
                (done, None)
            }
        }
    }

    /// Statistics with the time integrals closed at `now` (does not change the port).
    pub fn stats_at(&self, now: Time) -> PortStats {
        let mut s = self.stats;
        if now > self.warmup {
            let from = self.last_change.max(self.warmup);
            s.q_area_pkt_ps += self.queue.len() as u128 * (now - from).0 as u128;
            if let Some(idle) = self.idle_since {
                s.idle_ps += (now - idle.max(self.warmup)).0;
            }
        }
        s
    }
}
