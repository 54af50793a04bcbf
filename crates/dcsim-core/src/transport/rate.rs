//! A rate-based source: a paced sender of fixed-size frames at the rate its L2 reaction point
//! allows (the DSM paper's §II.A framework, Fig. 1). There is no window, no ACK clock and no
//! retransmission: a frame dropped by a queue is lost (counted) and the source goes on.
//!
//! Pacing: frame n+1 leaves `size(n) · 8 / r` after frame n started, with r the rate at that
//! moment. When the rate changes between two frames, the next departure is recomputed from the
//! previous one with the new rate (never earlier than now), so a source that was slowed to
//! MinRate reacts to a rate increase at once instead of after its long gap. Events are never
//! cancelled: a send event acts only at the armed instant ([`RateSource::due`]).

use crate::packet::{FlowId, Kind, NodeId, Packet};
use crate::units::{Rate, Time};

/// Counters of a source (whole run so far, or a snapshot at warm-up).
#[derive(Clone, Copy, Debug, Default)]
pub struct RateStats {
    pub sent_frames: u64,
    pub sent_bytes: u64,
    pub delivered_frames: u64,
    pub delivered_bytes: u64,
    pub dropped_frames: u64,
    pub feedback_frames: u64,
    /// Loop delays of the feedback frames received (sampled frame's send -> feedback arrival).
    pub loop_delay_sum_ps: u128,
}

impl RateStats {
    pub fn minus(self, o: RateStats) -> RateStats {
        RateStats {
            sent_frames: self.sent_frames - o.sent_frames,
            sent_bytes: self.sent_bytes - o.sent_bytes,
            delivered_frames: self.delivered_frames - o.delivered_frames,
            delivered_bytes: self.delivered_bytes - o.delivered_bytes,
            dropped_frames: self.dropped_frames - o.dropped_frames,
            feedback_frames: self.feedback_frames - o.feedback_frames,
            loop_delay_sum_ps: self.loop_delay_sum_ps - o.loop_delay_sum_ps,
        }
    }
}

/// One paced source `src -> dst` (its reaction point lives beside it in `l2::world`).
#[derive(Clone, Debug)]
pub struct RateSource {
    pub id: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub frame_bytes: u32,
    pub start: Time,
    /// The source stops sending at this time (exclusive).
    pub stop: Time,
    /// Payload to send, bytes (None: long-lived until `stop`).
    pub size_bytes: Option<u64>,
    /// Armed departure time of the next frame (None: not started, or finished).
    next_send: Option<Time>,
    /// Start of the previous frame and its size (to re-pace after a rate change).
    last_send: Option<(Time, u32)>,
    pub stats: RateStats,
    /// Frames of a finite source: the last one's sequence number.
    pub last_seq: Option<u64>,
    /// When the last of a finite source's bytes reached `dst` (its FCT is this minus `start`);
    /// None while any is missing, and for good once a frame is lost (no L2 retransmission).
    pub finished_at: Option<Time>,
    pub loop_delay_min_ps: Option<u64>,
    pub loop_delay_max_ps: Option<u64>,
}

impl RateSource {
    pub fn new(
        id: FlowId,
        src: NodeId,
        dst: NodeId,
        frame_bytes: u32,
        start: Time,
        stop: Time,
        size_bytes: Option<u64>,
    ) -> Self {
        let last_seq = size_bytes.map(|b| b.div_ceil(frame_bytes as u64).max(1) - 1);
        RateSource {
            id,
            src,
            dst,
            frame_bytes,
            start,
            stop,
            size_bytes,
            next_send: None,
            last_send: None,
            stats: RateStats::default(),
            last_seq,
            finished_at: None,
            loop_delay_min_ps: None,
            loop_delay_max_ps: None,
        }
    }

    /// Arm the first frame at `start`; returns the time to schedule.
    pub fn arm_start(&mut self) -> Option<Time> {
        (self.start < self.stop).then(|| {
            self.next_send = Some(self.start);
            self.start
        })
    }

    /// A send event at `now` is the armed one.
    #[inline]
    pub fn due(&self, now: Time) -> bool {
        self.next_send == Some(now)
    }

    /// The source is sending (started, not stopped, data left).
    pub fn active(&self) -> bool {
        self.next_send.is_some()
    }

    /// Bytes of frame `seq` on the wire (a finite source's last frame may be shorter).
    fn frame_size(&self, seq: u64) -> u32 {
        match (self.size_bytes, self.last_seq) {
            (Some(b), Some(last)) if seq == last => (b - last * self.frame_bytes as u64).max(1) as u32,
            _ => self.frame_bytes,
        }
    }

    /// Send the armed frame at `now` (call only when [`due`](Self::due)); returns it and the
    /// next departure at `rate`, if any.
    pub fn send(&mut self, now: Time, rate: Rate) -> (Packet, Option<Time>) {
        let seq = self.stats.sent_frames;
        let size = self.frame_size(seq);
        let pkt = Packet {
            kind: Kind::Frame,
            flow: self.id,
            src: self.src,
            dst: self.dst,
            size,
            seq,
            ect: false,
            ce: false,
            ece: false,
            ts: now,
            aux: 0,
        };
        self.stats.sent_frames += 1;
        self.stats.sent_bytes += size as u64;
        self.last_send = Some((now, size));
        let more = self.last_seq.is_none_or(|last| seq < last);
        let next = now + rate.tx_time(size);
        self.next_send = (more && next < self.stop).then_some(next);
        (pkt, self.next_send)
    }

    /// The rate changed at `now`: re-pace the next frame; returns a new time to schedule, if the
    /// departure moved.
    pub fn repace(&mut self, now: Time, rate: Rate) -> Option<Time> {
        let (armed, (last, size)) = (self.next_send?, self.last_send?);
        let next = (last + rate.tx_time(size)).max(now);
        if next == armed {
            return None;
        }
        self.next_send = (next < self.stop).then_some(next);
        self.next_send
    }

    /// Its host NIC had no room for the armed frame, which waited for its turn: it departs at
    /// `now` instead (host backpressure: the sources of one host share its line rate, as TCP
    /// flows do). False if the source no longer sends (stopped meanwhile).
    pub fn depart_now(&mut self, now: Time) -> bool {
        self.next_send = (self.next_send.is_some() && now < self.stop).then_some(now);
        self.next_send.is_some()
    }

    /// A frame of this source reached its destination at `now`. A finite source finishes when
    /// its whole payload has arrived, not when its last frame does: with a frame dropped before
    /// it, the last frame's arrival is no completion (the flow never delivers its size).
    pub fn on_delivered(&mut self, pkt: &Packet, now: Time) {
        self.stats.delivered_frames += 1;
        self.stats.delivered_bytes += pkt.size as u64;
        if self.size_bytes == Some(self.stats.delivered_bytes) {
            self.finished_at = Some(now);
        }
    }

    /// A feedback frame arrived at `now` for a frame sent at `sent`.
    pub fn on_feedback(&mut self, sent: Time, now: Time) {
        let d = now.0.saturating_sub(sent.0);
        self.stats.feedback_frames += 1;
        self.stats.loop_delay_sum_ps += d as u128;
        self.loop_delay_min_ps = Some(self.loop_delay_min_ps.map_or(d, |m| m.min(d)));
        self.loop_delay_max_ps = Some(self.loop_delay_max_ps.map_or(d, |m| m.max(d)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G10: Rate = Rate(10_000_000_000);

    #[test]
    fn paces_at_the_rate_and_stops() {
        // 1000 B frames at 10 Gbps: one every 800 ns; the source stops before 4 us.
        let mut s = RateSource::new(0, 0, 1, 1000, Time(0), Time(4_000_000), None);
        let mut t = s.arm_start().unwrap();
        let mut times = vec![];
        while s.due(t) {
            times.push(t.0);
            match s.send(t, G10).1 {
                Some(n) => t = n,
                None => break,
            }
        }
        assert_eq!(times, vec![0, 800_000, 1_600_000, 2_400_000, 3_200_000]);
        assert!(!s.active());
    }

    #[test]
    fn finite_source_sends_its_bytes_and_records_fct() {
        let mut s = RateSource::new(3, 0, 1, 1000, Time(0), Time(u64::MAX), Some(2500));
        let mut t = s.arm_start().unwrap();
        let mut sizes = vec![];
        loop {
            let (p, next) = s.send(t, G10);
            sizes.push(p.size);
            s.on_delivered(&p, t + Time(1000));
            match next {
                Some(n) => t = n,
                None => break,
            }
        }
        assert_eq!(sizes, vec![1000, 1000, 500]);
        assert_eq!(s.stats.sent_bytes, 2500);
        assert_eq!(s.finished_at, Some(Time(1_600_000 + 1000)));
    }

    #[test]
    fn a_finite_source_that_lost_a_frame_never_finishes() {
        // 2500 B in frames of 1000, 1000 and 500 B; the second is dropped on the way: the last
        // frame's arrival is no completion, and the FCT stays undefined.
        let mut s = RateSource::new(3, 0, 1, 1000, Time(0), Time(u64::MAX), Some(2500));
        let mut t = s.arm_start().unwrap();
        let mut seq = 0;
        loop {
            let (p, next) = s.send(t, G10);
            if seq != 1 {
                s.on_delivered(&p, t + Time(1000));
            }
            seq += 1;
            match next {
                Some(n) => t = n,
                None => break,
            }
        }
        assert_eq!((s.stats.sent_bytes, s.stats.delivered_bytes), (2500, 1500));
        assert_eq!(s.finished_at, None);
    }

    #[test]
    fn repace_moves_the_next_departure_both_ways() {
        let mut s = RateSource::new(0, 0, 1, 1000, Time(0), Time(u64::MAX), None);
        let t = s.arm_start().unwrap();
        let (_, next) = s.send(t, Rate(100_000_000)); // 80 us gap at 100 Mb/s
        assert_eq!(next, Some(Time(80_000_000)));
        // At 1 us the rate goes to 10 Gbps: the next frame is due at 0 + 800 ns < now -> now.
        assert_eq!(s.repace(Time(1_000_000), G10), Some(Time(1_000_000)));
        assert!(s.due(Time(1_000_000)));
        // Slower again: 0 + 8 us.
        assert_eq!(s.repace(Time(1_000_000), Rate(1_000_000_000)), Some(Time(8_000_000)));
        // Same rate: nothing moves.
        assert_eq!(s.repace(Time(2_000_000), Rate(1_000_000_000)), None);
    }
}
