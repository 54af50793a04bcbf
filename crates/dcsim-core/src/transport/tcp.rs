//! Reliable window transport: a TCP sender (slow start, congestion avoidance, 3-dupACK fast
//! retransmit with NewReno partial ACKs (RFC 5681/6582), RTO from SRTT/RTTVAR (RFC 6298),
//! ECN response at most once per window (RFC 3168)) and a receiver (cumulative ACKs, per-packet
//! ECN echo, optional delayed ACKs with DCTCP's CE state machine, RFC 8257 §3.2).
//!
//! Units: sequence numbers and windows count segments (full-size data packets); cwnd is a real
//! number of segments, as in ns-2.
//!
//! Modelling choices (ns-2 `tcp.cc` semantics, which the reference papers used):
//! * an ACK carrying ECN-Echo does not open the window (`recv_newack_helper` with ns-2's default
//!   `old_ecn_ = 0`; with `old_ecn_ = 1` only the first ECE ACK of a run is held back);
//! * the ECN cut happens when an ECE ACK of new data acknowledges data sent after the previous
//!   cut (ns-2's `ecn()` also reacts to ECE on duplicate ACKs and right after a timeout, and
//!   counts duplicate ACKs in α's window: loss episodes only, not modelled);
//! * the receiver echoes CE per packet (no RFC 3168 latch), for NewReno-ECN as for DCTCP;
//! * host backpressure, like Linux's TCP Small Queues: new data goes to the host NIC only while
//!   the NIC holds fewer than a few packets (`tx_budget`, set by the simulator); the rest waits in
//!   the socket, so a flow cannot build an unbounded queue in its own host;
//! * the window grows only when it limited the sender (RFC 7661 / Linux `is_cwnd_limited`), and
//!   in slow start also while below twice the most segments out in the last window (Linux
//!   `tcp_is_cwnd_limited`), so a sender held back by a NIC as fast as the path still doubles;
//! * NewReno's "Impatient" timer (RFC 6582 §4): in recovery only the first partial ACK restarts
//!   the retransmission timer, so a window with many losses ends in a timeout after one RTO
//!   instead of repairing one hole per RTT for hundreds of RTTs (without SACK).
//!
//! The Linux profile's mechanisms (`TcpOptions`, see `scenario.rs`) enter through a few hooks:
//! * `sack`: ACKs carry SACK blocks ([`SackReceiver`]) and the sender keeps a [`Scoreboard`]; its
//!   ACKs go to [`Sender::sack_ack`] (RFC 6675 recovery with PRR, Linux's CA states Open / CWR /
//!   Recovery / Loss) and it sends with [`Sender::send_sack`] (pipe < cwnd, NextSeg);
//! * `ecn_response = "prr"`: ECN-Echo enters CWR ([`Sender::enter_cwr`]) and [`Prr`] brings the
//!   window to the new ssthresh over one RTT, without growth until an ACK passes the CWR point;
//! * `cwr_freeze` (with the immediate cut): no growth until an ACK passes the point of the cut;
//! * `abc`: growth by the segments acknowledged (RFC 3465) in [`Sender::open_cwnd`];
//! * `ce_quickack`: the receiver also ACKs at once the packet that changed the CE state;
//! * `ect_acks`: the receiver's pure ACKs carry ECT(0) (an ECN queue marks them, not drops them);
//! * the profile itself: a delaying receiver ACKs at once the segment that ends the sender's write
//!   (a flow is one write: its last segment, PSH), as Linux does when the application reads it:
//!   `tcp_measure_rcv_mss` sets ICSK_ACK_PUSHED for a segment shorter than the MSS, or a full one
//!   with PSH (since the 2023 fix of the MSS boundary case), and `tcp_cleanup_rbuf` then ACKs when
//!   the read empties the buffer. Without it a flow with an odd number of segments waited the
//!   40 ms delayed-ACK timer for its last ACK (a review: a 1 KB flow's FCT 40.1 ms, not 0.1 ms);
//!   and Linux's quick-ACK mode ([`QuickAck`]): a delaying receiver ACKs its first in-order
//!   segments at once, and again after a silence longer than its RTO.

use crate::cc::{Cc, Controller, EcnResponse};
use crate::packet::{FlowId, Kind, NodeId, Packet};
use crate::scenario::{EcnReaction, FlowSpec, Profile, TcpOptions, INITIAL_RTO_FLOOR_PS, MAX_RTO_PS};
use crate::transport::prr::{Bound, Prr};
use crate::transport::sack::{NextSeg, RangeSet, SackBlocks, SackReceiver, Scoreboard};
use crate::units::Time;

/// Timer granularity G of RFC 6298 (1 us, data-center configuration).
const TIMER_GRANULARITY: Time = Time(1_000_000);
/// RFC 6298 (2.5)'s cap of the backed-off timer (the largest `min_rto` too).
const MAX_RTO: Time = Time(MAX_RTO_PS);

/// How a flow's bytes are cut into segments: all full-size but possibly the last.
#[derive(Clone, Copy, Debug)]
pub struct Segmenter {
    /// Payload bytes of a full segment.
    pub payload: u32,
    /// Segments in the flow (None: long-lived).
    pub total_segs: Option<u64>,
    last_payload: u32,
}

impl Segmenter {
    pub fn new(size_bytes: Option<u64>, payload: u32) -> Self {
        match size_bytes {
            None => Segmenter { payload, total_segs: None, last_payload: payload },
            Some(sz) => {
                let n = sz.div_ceil(payload as u64);
                Segmenter { payload, total_segs: Some(n), last_payload: (sz - (n - 1) * payload as u64) as u32 }
            }
        }
    }

    /// Payload bytes of segment `seq`.
    #[inline]
    pub fn payload_of(&self, seq: u64) -> u32 {
        match self.total_segs {
            Some(n) if seq + 1 == n => self.last_payload,
            _ => self.payload,
        }
    }

    /// Payload of the segments in [a, b), bytes.
    pub fn bytes_in(&self, a: u64, b: u64) -> u64 {
        let full = (b - a) * self.payload as u64;
        match self.total_segs {
            Some(n) if a < n && n <= b => full - self.payload as u64 + self.last_payload as u64,
            _ => full,
        }
    }

    #[inline]
    pub fn has(&self, seq: u64) -> bool {
        self.total_segs.is_none_or(|n| seq < n)
    }
}

/// Per-flow counters, reported in the flows table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub sent_pkts: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// ACKs received with ECN-Echo.
    pub ece_acks: u64,
    pub ecn_cuts: u64,
    /// Once-per-RTT window decisions of a controller that owns its window (DX), and how many of
    /// them took the decrease branch (Q > 0); their ratio is the DX paper's p (Table 1).
    pub rtt_rounds: u64,
    pub rtt_decreases: u64,
    /// Sum over those rounds of the measured queueing delay Q, ps.
    pub rtt_q_sum_ps: u64,
    /// RTT samples seen by a controller with a base RTT, and those above it (queueing).
    pub rtt_samples: u64,
    pub rtt_samples_queued: u64,
}

/// Time integrals of the window and of DCTCP's alpha while the flow runs (from its start to its
/// end), for exact time-weighted means: the window only changes when an ACK or a timeout is
/// handled, so it is integrated just before each of those.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WindowAreas {
    /// Integral of cwnd, packet·ps.
    pub cwnd_pkt_ps: f64,
    /// Integral of alpha, ps (NaN for controllers without alpha).
    pub alpha_ps: f64,
    /// Time the flow ran, ps.
    pub active_ps: u64,
}

impl std::ops::Sub for WindowAreas {
    type Output = WindowAreas;
    fn sub(self, o: WindowAreas) -> WindowAreas {
        WindowAreas {
            cwnd_pkt_ps: self.cwnd_pkt_ps - o.cwnd_pkt_ps,
            alpha_ps: self.alpha_ps - o.alpha_ps,
            active_ps: self.active_ps - o.active_ps,
        }
    }
}

/// Counters since a snapshot (e.g. the warm-up instant).
impl std::ops::Sub for SenderStats {
    type Output = SenderStats;
    fn sub(self, o: SenderStats) -> SenderStats {
        SenderStats {
            sent_pkts: self.sent_pkts - o.sent_pkts,
            retransmits: self.retransmits - o.retransmits,
            timeouts: self.timeouts - o.timeouts,
            fast_retransmits: self.fast_retransmits - o.fast_retransmits,
            ece_acks: self.ece_acks - o.ece_acks,
            ecn_cuts: self.ecn_cuts - o.ecn_cuts,
            rtt_rounds: self.rtt_rounds - o.rtt_rounds,
            rtt_decreases: self.rtt_decreases - o.rtt_decreases,
            rtt_q_sum_ps: self.rtt_q_sum_ps - o.rtt_q_sum_ps,
            rtt_samples: self.rtt_samples - o.rtt_samples,
            rtt_samples_queued: self.rtt_samples_queued - o.rtt_samples_queued,
        }
    }
}

pub struct Sender {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub cc: Cc,
    /// Congestion window, segments.
    pub cwnd: f64,
    pub ssthresh: f64,
    min_cwnd: f64,
    /// Oldest unacknowledged segment.
    pub snd_una: u64,
    /// Next segment to send.
    pub snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub max_sent: u64,
    pub seg: Segmenter,
    header: u32,
    dupacks: u32,
    in_recovery: bool,
    /// NewReno `recover`: max_sent when recovery started.
    recover: u64,
    /// Partial ACKs seen in the current recovery.
    partial_acks: u32,
    /// ECN cuts happen only for ACKs beyond this segment (once per window).
    ecn_recover: u64,
    /// With `cwr_freeze`, ACKs up to this segment do not open the window: the round trip after
    /// an immediate ECN cut (only ECN cuts set it: Linux grows the window in Loss, after a
    /// timeout, and on the ACK that ends a recovery).
    cwr_until: u64,
    /// Timeouts since snd_una last advanced (Linux `icsk_retransmits`).
    rtos_since_progress: u32,
    pub srtt: Option<Time>,
    rttvar: Time,
    rto: Time,
    min_rto: Time,
    /// When the retransmission timer expires (None: disarmed).
    pub rto_deadline: Option<Time>,
    /// A timer event is already scheduled at this time.
    pub rto_event_at: Option<Time>,
    pub started: bool,
    /// New segments the host NIC accepts now (host backpressure); set before every call.
    pub tx_budget: u64,
    /// The last send attempt stopped because the NIC was full.
    pub blocked_on_nic: bool,
    /// The last send attempt stopped because the window was full.
    cwnd_limited: bool,
    /// Most segments out during the current window (Linux `max_packets_out`), and the
    /// `snd_nxt` that ends that window (`cwnd_usage_seq`): slow start may grow to twice it.
    max_out: u64,
    usage_seq: u64,
    pub start: Time,
    pub finished_at: Option<Time>,
    pub stats: SenderStats,
    /// Window and alpha integrals up to `areas_at` (see [`Sender::integrate`]).
    pub areas: WindowAreas,
    areas_at: Time,
    /// Sum over ECN cuts of the fraction of the window removed (1 - after/before): the mean
    /// back-off of DCTCP is alpha/2 per cut, NewReno's 1/2.
    pub ecn_cut_frac_sum: f64,
    /// Profile and options of the transport.
    pub opts: TcpOptions,
    /// Linux's congestion state, for the Linux mechanisms (always Open under ns-2 options).
    pub ca: CaState,
    /// End of the current CWR / recovery / loss episode (Linux `high_seq`).
    high_seq: u64,
    /// The rate reduction of the current CWR or SACK recovery.
    prr: Prr,
    /// SACK scoreboard (`sack = true`).
    sb: Option<Box<Scoreboard>>,
}

/// Linux's congestion-avoidance states (`tcp_ca_state`) that the Linux mechanisms use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    /// ECN reduction with PRR until an ACK passes `high_seq`.
    Cwr,
    /// SACK loss recovery with PRR until `high_seq` is acknowledged.
    Recovery,
    /// After a retransmission timeout, until `high_seq` is acknowledged.
    Loss,
}

impl Sender {
    pub fn new(flow: FlowId, src: NodeId, dst: NodeId, spec: &FlowSpec, packet_bytes: u32, header_bytes: u32) -> Self {
        let opts = spec.tcp_options();
        let mut cc = Cc::new(&spec.protocol);
        if opts.dctcp_fixed_point {
            cc.use_linux_dctcp();
        }
        if opts.profile == Profile::Linux {
            cc.use_linux_reno();
        }
        Sender {
            flow,
            src,
            dst,
            cc,
            cwnd: spec.init_cwnd_pkt,
            ssthresh: f64::INFINITY,
            min_cwnd: spec.min_cwnd(),
            snd_una: 0,
            snd_nxt: 0,
            max_sent: 0,
            seg: Segmenter::new(spec.size_bytes, packet_bytes - header_bytes),
            header: header_bytes,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            partial_acks: 0,
            ecn_recover: 0,
            cwr_until: 0,
            rtos_since_progress: 0,
            srtt: None,
            rttvar: Time::ZERO,
            rto: Time(INITIAL_RTO_FLOOR_PS).max(Time(spec.min_rto())),
            min_rto: Time(spec.min_rto()),
            rto_deadline: None,
            rto_event_at: None,
            started: false,
            tx_budget: u64::MAX,
            blocked_on_nic: false,
            cwnd_limited: false,
            max_out: 0,
            usage_seq: 0,
            start: Time(spec.start_ps),
            finished_at: None,
            stats: SenderStats::default(),
            areas: WindowAreas::default(),
            areas_at: Time::ZERO,
            ecn_cut_frac_sum: 0.0,
            sb: opts.sack.then(Box::default),
            opts,
            ca: CaState::Open,
            high_seq: 0,
            prr: Prr::start(1, 1, Bound::SlowStart),
        }
    }

    #[inline]
    fn segment(&self, seq: u64, now: Time) -> Packet {
        Packet {
            kind: Kind::Data,
            flow: self.flow,
            src: self.src,
            dst: self.dst,
            size: self.seg.payload_of(seq) + self.header,
            seq,
            ect: self.cc.ect(),
            ce: false,
            ece: false,
            ts: now,
            aux: 0,
        }
    }

    fn transmit(&mut self, seq: u64, now: Time, out: &mut Vec<Packet>) {
        if seq < self.max_sent {
            self.stats.retransmits += 1;
        }
        if matches!(self.ca, CaState::Cwr | CaState::Recovery) {
            self.prr.sent();
        }
        self.stats.sent_pkts += 1;
        out.push(self.segment(seq, now));
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto);
        }
    }

    /// The window in whole segments, at least one: floor(cwnd) max 1. The float-to-integer cast
    /// truncates toward zero and saturates (NaN to 0), which is the floor for every cwnd that
    /// can occur and the same integer in every other case, without a call to libm's `floor`
    /// (not inlined without SSE4.1; 1.3 % of the engine's time at N = 10).
    #[inline]
    fn whole_window(&self) -> u64 {
        (self.cwnd as u64).max(1)
    }

    /// Send new segments while the window allows.
    pub fn send_window(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.sb.is_some() {
            return self.send_sack(now, out);
        }
        let wnd = self.whole_window();
        let first = self.snd_nxt;
        self.blocked_on_nic = false;
        while self.snd_nxt < self.snd_una + wnd && self.seg.has(self.snd_nxt) {
            if self.tx_budget == 0 {
                self.blocked_on_nic = true;
                break;
            }
            self.tx_budget -= 1;
            let seq = self.snd_nxt;
            self.transmit(seq, now, out);
            self.snd_nxt += 1;
            self.max_sent = self.max_sent.max(self.snd_nxt);
        }
        self.cwnd_limited = self.snd_nxt >= self.snd_una + wnd;
        self.note_usage(self.snd_nxt - self.snd_una, self.snd_nxt > first);
    }

    /// Track the most segments out in the current window after a send attempt that sent or was
    /// window-limited (Linux `tcp_cwnd_validate`, called from `tcp_write_xmit`).
    #[inline]
    fn note_usage(&mut self, out_now: u64, sent: bool) {
        if !sent && !self.cwnd_limited {
            return;
        }
        if self.snd_una >= self.usage_seq || self.cwnd_limited || out_now > self.max_out {
            self.max_out = out_now;
            self.usage_seq = self.snd_nxt;
        }
    }

    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.started = true;
        self.areas_at = now;
        self.send_window(now, out);
    }

    /// Bring the window integrals up to `now` (the window held since the last call).
    #[inline]
    pub fn integrate(&mut self, now: Time) {
        if !self.started || self.done() || now <= self.areas_at {
            return;
        }
        let dt = (now - self.areas_at).0;
        self.areas.cwnd_pkt_ps += self.cwnd * dt as f64;
        self.areas.alpha_ps += self.cc.alpha() * dt as f64;
        self.areas.active_ps += dt;
        self.areas_at = now;
    }

    /// Prefetch the cache lines of the fields a window sample reads (hints only).
    #[inline(always)]
    pub fn prefetch_sampled(&self) {
        use std::mem::offset_of;
        let p = self as *const Sender as *const u8;
        for off in [
            offset_of!(Sender, srtt),
            offset_of!(Sender, finished_at),
            offset_of!(Sender, started),
            offset_of!(Sender, cwnd),
            offset_of!(Sender, cc),
        ] {
            crate::prefetch::line(p.wrapping_add(off));
        }
    }

    pub fn done(&self) -> bool {
        self.finished_at.is_some()
    }

    fn flight(&self) -> f64 {
        (self.max_sent - self.snd_una) as f64
    }

    /// ssthresh after a loss (fast retransmit or timeout). ns-2 (RFC 5681 eq. 4, RFC 6675):
    /// FlightSize / 2. Linux: the congestion control's halving of the window on whole segments,
    /// `max(cwnd >> 1, 2)` (`tcp_reno_ssthresh`; DCTCP's `dctcp_react_to_loss`, which replaces
    /// its alpha-based ssthresh on Recovery and RTO). Floored at 2 and at the window floor.
    ///
    /// ns-2 profile: a timeout during NewReno's recovery (no SACK) does not count what the
    /// window's inflation by the duplicate ACKs sent: the flight is capped at the window the
    /// recovery set (ssthresh), as ns-2 clears `dupwnd_` before its timeout halves `cwnd_`.
    /// Without the cap a long recovery (one hole per round trip) that ends in a timeout set
    /// ssthresh to half of everything the inflation had sent, and the slow start up to it
    /// overflowed the buffer again: a cycle of burst losses and timeouts. (Linux keeps the
    /// recovery's ssthresh at such a timeout: [`Self::timeout_sets_ssthresh`].)
    fn loss_ssthresh(&self) -> f64 {
        let half = match self.opts.profile {
            Profile::Linux => ((self.cwnd.floor() as u64) >> 1) as f64,
            Profile::Ns2 if self.in_recovery => self.flight().min(self.ssthresh) / 2.0,
            Profile::Ns2 => self.flight() / 2.0,
        };
        half.max(2.0).max(self.min_cwnd)
    }

    /// Does a timeout now set ssthresh? ns-2: every timeout. Linux (`tcp_enter_loss`): outside a
    /// reduction episode (Open, or CWR / Recovery / Loss whose `high_seq` is acknowledged), or in
    /// Loss when no timeout fired since snd_una last advanced; a backed-off timeout of the same
    /// episode keeps the ssthresh its first one set (it would otherwise halve the 1-segment window).
    ///
    /// ns-2 profile: every timeout but one whose segment the timer already resent (no ACK of new
    /// data since the last timeout): RFC 5681 §3.1 holds ssthresh then. The flight of a
    /// backed-off timeout still holds all the lost window, whose half would undo the first
    /// timeout's cut (and, after a recovery, bring back what the inflation sent).
    fn timeout_sets_ssthresh(&self) -> bool {
        if self.opts.profile != Profile::Linux {
            return self.rtos_since_progress == 0;
        }
        let (episode, loss) = if self.sb.is_some() {
            (self.ca != CaState::Open && self.high_seq > self.snd_una, self.ca == CaState::Loss)
        } else {
            // NewReno (no SACK): recovery until `recover`, after a timeout also (go-back-N).
            let cwr = self.ca == CaState::Cwr && self.high_seq > self.snd_una;
            (self.in_recovery || cwr || self.recover > self.snd_una, !self.in_recovery && self.recover > self.snd_una)
        };
        !episode || (loss && self.rtos_since_progress == 0)
    }

    /// RFC 6298 update from one RTT sample.
    fn rtt_sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Time(r.0 / 2);
            }
            Some(s) => {
                let diff = s.0.abs_diff(r.0);
                self.rttvar = Time((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(Time((7 * s.0 + r.0) / 8));
            }
        }
        let s = self.srtt.unwrap_or(r);
        self.rto = (s + TIMER_GRANULARITY.max(Time(4 * self.rttvar.0))).max(self.min_rto).min(MAX_RTO);
    }

    /// Slow start or congestion avoidance increase for one new ACK acknowledging `acked` segments:
    /// one segment per ACK in slow start, 1/cwnd in congestion avoidance (ns-2); with `abc`, by
    /// the segments acknowledged (RFC 3465; Linux `tcp_slow_start` caps slow start at ssthresh and
    /// carries the rest into congestion avoidance).
    #[inline]
    fn open_cwnd(&mut self, acked: u64) {
        let slow_start_room = self.cwnd < self.ssthresh && self.cwnd < 2.0 * self.max_out as f64;
        if !self.cwnd_limited && !slow_start_room {
            return;
        }
        if self.opts.abc {
            let mut n = acked as f64;
            if self.cwnd < self.ssthresh {
                let ss = n.min(self.ssthresh - self.cwnd);
                self.cwnd += ss;
                n -= ss;
            }
            if n > 0.0 {
                self.cwnd += n / self.cwnd;
            }
        } else if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    /// ECN-Echo under `ecn_response = "prr"`: enter CWR (Linux `tcp_enter_cwr`): ssthresh from the
    /// controller (floored at 2, as Linux's ssthresh functions), PRR from the current window.
    fn enter_cwr(&mut self) {
        let before = self.cwnd;
        self.ssthresh = self.cc.ecn_cut(before).max(2.0).max(self.min_cwnd);
        self.prr = Prr::start(self.ssthresh.floor() as u64, before.floor() as u64, Bound::SlowStart);
        self.high_seq = self.snd_nxt;
        self.ca = CaState::Cwr;
        self.ecn_cut_frac_sum += (1.0 - self.ssthresh / before).max(0.0);
        self.stats.ecn_cuts += 1;
    }

    /// A CWR or recovery episode ended (Linux `tcp_end_cwnd_reduction`): the window is ssthresh.
    /// ECN-Echo with `ecn_response = "immediate"` (ns-2): cut at once with the controller's rule,
    /// at most once per window of data (until `snd_nxt` of this moment is acknowledged).
    fn ecn_cut_now(&mut self) {
        let before = self.cwnd;
        self.cwnd = self.cc.ecn_cut(self.cwnd).max(self.min_cwnd);
        self.ecn_cut_frac_sum += (1.0 - self.cwnd / before).max(0.0);
        self.ssthresh = self.cwnd;
        self.ecn_recover = self.snd_nxt;
        self.cwr_until = self.snd_nxt;
        self.stats.ecn_cuts += 1;
    }

    /// The window on an ACK of new data, with a controller that reacts per marked ACK
    /// (DCTCP–Improved Fairness), the DCTCP analysis paper's eq. (36): W <- W + 1/W - alpha/2 per
    /// acknowledged segment, both terms on the window before this ACK; a mark ends slow start.
    /// `grow`: the transport's increase applies to this ACK, by `grow_by` segments; `marked`: it
    /// carries a mark the controller answers per ACK, for each of the `acked` segments it
    /// acknowledges cumulatively.
    fn grow_and_ecn_per_ack(&mut self, grow_by: u64, acked: u64, marked: bool, grow: bool) {
        if marked {
            self.ssthresh = self.ssthresh.min(self.cwnd);
        }
        if grow {
            self.open_cwnd(grow_by);
        }
        if marked {
            let before = self.cwnd;
            self.cwnd = self.cc.per_ack_ecn_decrease(before, acked).max(self.min_cwnd);
            self.ecn_cut_frac_sum += (1.0 - self.cwnd / before).max(0.0);
            self.ssthresh = self.ssthresh.min(self.cwnd);
            self.stats.ecn_cuts += 1;
        }
    }

    /// A delay-based controller's once-per-RTT window decision (DX eqs. 1-2), if this ACK ends a round.
    fn window_round(&mut self, ack_no: u64) {
        if let Some(r) = self.cc.window_round(self.cwnd, ack_no, self.snd_nxt, self.cwnd_limited) {
            self.cwnd = r.cwnd.max(self.min_cwnd);
            self.stats.rtt_rounds += 1;
            self.stats.rtt_decreases += r.decrease as u64;
            self.stats.rtt_q_sum_ps += r.q_ps;
        }
    }

    /// A finite flow whose last segment is acknowledged is finished: no timer, no NIC wait.
    fn finish_if_complete(&mut self, now: Time) -> bool {
        if self.seg.total_segs.is_none_or(|n| self.snd_una < n) {
            return false;
        }
        self.finished_at = Some(now);
        self.rto_deadline = None;
        self.blocked_on_nic = false;
        true
    }

    fn end_reduction(&mut self) {
        if matches!(self.ca, CaState::Cwr | CaState::Recovery) && self.cc.reacts_to_loss() {
            self.cwnd = self.ssthresh;
        }
        self.ca = CaState::Open;
        if let Some(sb) = &mut self.sb {
            sb.end_recovery();
        }
    }

    /// A new ACK under `ecn_response = "prr"` without SACK: CWR entry, PRR, exit (the ACK that
    /// passes the CWR point ends it and may start the next one), growth only outside CWR.
    fn cwr_ack(&mut self, ece: bool, acked: u64, ack_no: u64) {
        if self.ca == CaState::Cwr && ack_no > self.high_seq {
            self.end_reduction();
        }
        if self.ca == CaState::Open && ece {
            self.enter_cwr();
        }
        if self.ca == CaState::Cwr {
            let pipe = self.snd_nxt - self.snd_una;
            let n = self.prr.on_ack(acked, pipe);
            self.cwnd = ((pipe + n) as f64).max(1.0);
        } else if !ece {
            self.open_cwnd(acked);
        }
    }

    /// Handle an ACK without SACK blocks. New packets to send are pushed to `out`.
    pub fn on_ack(&mut self, ack: &Packet, now: Time, out: &mut Vec<Packet>) {
        self.on_ack_with_sack(ack, &[], now, out)
    }

    /// Handle an ACK and its SACK blocks (most recent first; ignored without `sack`).
    pub fn on_ack_with_sack(&mut self, ack: &Packet, blocks: &[(u64, u64)], now: Time, out: &mut Vec<Packet>) {
        if self.done() {
            return;
        }
        self.integrate(now);
        let ack_no = ack.seq;
        if ack.ece {
            self.stats.ece_acks += 1;
        }
        if now >= ack.ts {
            // RFC 6298's estimator takes its samples from ACKs of new data only (ns-2 `newack`;
            // Linux `tcp_clean_rtx_queue`: FLAG_ACKED, or with SACK a newly SACKed segment:
            // `sack_ack` samples those): a duplicate ACK of a segment sent long before had reset
            // the backed-off timer (15 timeouts: 60 s -> 10 ms; a review). A controller that reads
            // delay (DX) still sees every ACK's.
            if self.sb.is_none() && ack_no > self.snd_una {
                self.rtt_sample(now - ack.ts);
            }
            if let Some(queued) = self.cc.on_rtt_sample(now - ack.ts) {
                self.stats.rtt_samples += 1;
                self.stats.rtt_samples_queued += queued as u64;
            }
        }
        if self.sb.is_some() {
            if self.sack_ack(ack, blocks, now) {
                self.send_sack(now, out);
            }
            return;
        }
        if ack_no > self.snd_una {
            let acked = ack_no - self.snd_una;
            self.cc.on_ack(acked, ack.ece, ack_no, self.snd_nxt);
            self.snd_una = ack_no;
            self.rtos_since_progress = 0;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una; // after go-back-N, a late ACK may jump ahead
            }
            let mut restart_timer = true;
            let loss_window = self.cc.reacts_to_loss();
            if self.in_recovery {
                if ack_no >= self.recover {
                    // Full ACK: leave fast recovery (RFC 6582 "full" deflation).
                    if loss_window {
                        self.cwnd = self.ssthresh.min(self.flight() + 1.0).max(self.min_cwnd);
                    }
                    self.in_recovery = false;
                    self.dupacks = 0;
                } else {
                    // Partial ACK: retransmit the next hole, deflate by the amount acked, plus one.
                    self.transmit(ack_no, now, out);
                    if loss_window {
                        self.cwnd = (self.cwnd - acked as f64 + 1.0).max(1.0);
                    }
                    self.partial_acks += 1;
                    restart_timer = self.partial_acks == 1; // Impatient variant
                }
            } else if self.cc.ecn_response() != EcnResponse::OncePerWindow {
                // The window is the controller's (DX), or ECN acts per ACK (eq. 36).
                self.dupacks = 0;
                let marked = ack.ece && self.cc.ecn_response() == EcnResponse::PerAck;
                self.grow_and_ecn_per_ack(acked, acked, marked, !self.cc.owns_window());
            } else if self.opts.ecn_response == EcnReaction::Prr {
                self.dupacks = 0;
                self.cwr_ack(ack.ece, acked, ack_no);
            } else {
                self.dupacks = 0;
                if ack.ece && ack_no > self.ecn_recover {
                    self.ecn_cut_now();
                } else if !ack.ece && (!self.opts.cwr_freeze || ack_no > self.cwr_until) {
                    self.open_cwnd(acked);
                }
            }
            self.window_round(ack_no);
            if self.finish_if_complete(now) {
                return;
            }
            // Restart the retransmission timer for the remaining outstanding data.
            if self.snd_una >= self.max_sent {
                self.rto_deadline = None;
            } else if restart_timer {
                self.rto_deadline = Some(now + self.rto);
            }
        } else if ack_no == self.snd_una && self.snd_una < self.max_sent {
            self.dupacks += 1;
            let loss_window = self.cc.reacts_to_loss();
            if self.in_recovery {
                if loss_window {
                    self.cwnd += 1.0; // window inflation
                }
            } else if self.dupacks == 3 && ack_no > self.recover {
                // Fast retransmit only if the ACK covers more than `recover` (RFC 6582 §3.2 step 1,
                // the "careful" variant; ns-2's NewReno `highest_ack_ > recover_`): after a timeout,
                // duplicate ACKs that reach exactly `recover` come from go-back-N's duplicates, not
                // from a new loss. The price: a new loss of the segment at `recover` itself (after
                // a timeout or a recovery) waits for the timer, and so does the loss of a flow's
                // first segment (`recover` starts at 0, its duplicate ACKs carry 0: ns-2's
                // `highest_ack_ = -1` is not above `recover_ = 0` either; RFC 6582 would start
                // `recover` below the first segment and fast-retransmit it).
                self.stats.fast_retransmits += 1;
                if loss_window {
                    self.ssthresh = self.loss_ssthresh();
                    self.cwnd = self.ssthresh + 3.0;
                }
                self.recover = self.max_sent;
                self.ecn_recover = self.ecn_recover.max(self.max_sent);
                self.ca = CaState::Open; // NewReno recovery replaces a CWR reduction
                self.in_recovery = true;
                self.partial_acks = 0;
                self.transmit(ack_no, now, out);
                self.rto_deadline = Some(now + self.rto);
            }
        }
        self.send_window(now, out);
    }

    /// The retransmission timer fired at `now` (the caller checked `now >= deadline`).
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.done() || self.snd_una >= self.max_sent {
            self.rto_deadline = None;
            return;
        }
        self.integrate(now);
        self.stats.timeouts += 1;
        if self.timeout_sets_ssthresh() {
            self.ssthresh = self.loss_ssthresh();
        }
        self.rtos_since_progress = self.rtos_since_progress.saturating_add(1);
        self.cwnd = 1.0;
        if let Some(sb) = &mut self.sb {
            // RFC 6675 §5.1 / Linux tcp_enter_loss: SACKed marks kept, the rest lost.
            sb.on_timeout(self.snd_una, self.max_sent);
            self.ca = CaState::Loss;
            self.high_seq = self.max_sent;
            self.ecn_recover = self.max_sent;
            self.rto = Time(self.rto.0.saturating_mul(2)).min(MAX_RTO);
            self.rto_deadline = None;
            self.send_sack(now, out);
            self.rto_deadline = Some(now + self.rto);
            return;
        }
        self.recover = self.max_sent;
        self.ecn_recover = self.max_sent;
        self.in_recovery = false;
        self.dupacks = 0;
        self.snd_nxt = self.snd_una; // go back N
        self.rto = Time(self.rto.0.saturating_mul(2)).min(MAX_RTO); // exponential backoff
        self.rto_deadline = None;
        self.send_window(now, out);
        self.rto_deadline = Some(now + self.rto);
    }
}

/// SACK-based loss recovery (RFC 6675 with PRR, RFC 6937), Linux's CA states.
impl Sender {
    /// Process an ACK under `sack`; returns false when the flow finished with it.
    fn sack_ack(&mut self, ack: &Packet, blocks: &[(u64, u64)], now: Time) -> bool {
        let ack_no = ack.seq;
        if ack_no < self.snd_una {
            return true; // an old ACK (reordered behind a later one): nothing new
        }
        let acked = ack_no - self.snd_una;
        let sb = self.sb.as_mut().expect("sack_ack needs the scoreboard");
        let sacked = sb.update(ack_no, blocks);
        let delivered = (acked as i64 + sacked).max(0) as u64;
        // An RTT sample when the ACK acknowledges new data, cumulatively or by newly SACKed
        // segments (Linux's sack_rtt; see `on_ack_with_sack`), not when it repeats known blocks.
        if (acked > 0 || sacked > 0) && now >= ack.ts {
            self.rtt_sample(now - ack.ts);
        }
        // The controller counts (DCTCP's alpha: acknowledged and marked) each segment once, with the
        // ECN-Echo of the ACK that delivered it: under Linux, newly SACKed ones too, and not again
        // when the cumulative ACK covers them (tcp_count_delivered from tcp_sacktag_one and
        // tcp_clean_rtx_queue; a review: one ECE ACK filling a hole below 61 SACKed segments had
        // counted all 62 as marked). ns-2 counts the cumulative advance.
        let counted = if self.opts.profile == Profile::Linux { delivered } else { acked };
        if counted > 0 {
            self.cc.on_ack(counted, ack.ece, ack_no, self.snd_nxt);
        }
        if acked > 0 {
            self.snd_una = ack_no;
            self.rtos_since_progress = 0;
        }
        let loss_window = self.cc.reacts_to_loss();
        // Ends of episodes: CWR when an ACK passes high_seq, recovery and loss when it reaches it.
        match self.ca {
            CaState::Cwr if ack_no > self.high_seq => self.end_reduction(),
            CaState::Recovery | CaState::Loss if ack_no >= self.high_seq => self.end_reduction(),
            _ => {}
        }
        // Loss detection: IsLost(HighACK + 1) starts recovery (a CWR reduction continues in it).
        let lost = self.sb.as_ref().is_some_and(|sb| sb.is_lost(self.snd_una));
        if matches!(self.ca, CaState::Open | CaState::Cwr) && lost && self.snd_una < self.max_sent {
            self.stats.fast_retransmits += 1;
            if self.ca == CaState::Open {
                let prior = self.cwnd;
                if loss_window {
                    self.ssthresh = self.loss_ssthresh();
                }
                self.prr = Prr::start(self.ssthresh.min(prior).floor() as u64, prior.floor() as u64, Bound::SlowStart);
            } else if loss_window && self.opts.profile == Profile::Linux && self.cc.halves_on_loss_in_cwr() {
                // Linux dctcp_state: entering Recovery from CWR halves again (the reduction's
                // prior window, PRR's RecoverFS, stays; PRR reads the new ssthresh from here on).
                self.ssthresh = self.loss_ssthresh();
                self.prr.ssthresh = (self.ssthresh.floor() as u64).max(1);
            }
            self.ca = CaState::Recovery;
            self.high_seq = self.max_sent;
            self.recover = self.max_sent;
            self.ecn_recover = self.ecn_recover.max(self.max_sent);
        }
        // ECN-Echo, outside any reduction.
        match self.cc.ecn_response() {
            EcnResponse::OncePerWindow if ack.ece && self.ca == CaState::Open => match self.opts.ecn_response {
                EcnReaction::Prr => self.enter_cwr(),
                EcnReaction::Immediate if ack_no > self.ecn_recover => self.ecn_cut_now(),
                EcnReaction::Immediate => {}
            },
            _ => {} // a per-ACK reaction (eq. 36) goes with the window's growth below
        }
        // The window: PRR during a reduction, else growth (not on ECN-Echo ACKs of a controller
        // that cuts once per window, nor in the round trip after a cut with `cwr_freeze`).
        match self.ca {
            CaState::Cwr | CaState::Recovery => {
                if self.ca == CaState::Cwr || loss_window {
                    let pipe = self.sb.as_ref().map_or(0, |sb| sb.pipe(self.snd_una, self.max_sent));
                    let n = self.prr.on_ack(delivered, pipe);
                    self.cwnd = ((pipe + n) as f64).max(1.0);
                }
            }
            CaState::Open | CaState::Loss => {
                // Linux grows in Loss whatever the ACK's ECN-Echo (`tcp_may_raise_cwnd`: ECE starts
                // CWR only from Open), and by the segments this ACK newly delivered, cumulatively or
                // by SACK (`tcp_cong_control`'s acked_sacked), not those SACKed before (an audit:
                // one segment too many after every recovery). ns-2 grows by the cumulative ACK.
                let linux = self.opts.profile == Profile::Linux;
                let once = self.cc.ecn_response() == EcnResponse::OncePerWindow;
                let ece_freezes = ack.ece && !(linux && self.ca == CaState::Loss);
                let frozen = once && (ece_freezes || (self.opts.cwr_freeze && ack_no <= self.cwr_until));
                let marked = ack.ece && acked > 0 && self.cc.ecn_response() == EcnResponse::PerAck;
                let grown = if linux { delivered } else { acked };
                // The per-ACK ECN decrease (eq. 36) stays per cumulatively acknowledged segment.
                self.grow_and_ecn_per_ack(grown, acked, marked, acked > 0 && !self.cc.owns_window() && !frozen);
            }
        }
        if acked == 0 {
            return true;
        }
        self.window_round(ack_no);
        if self.finish_if_complete(now) {
            return false;
        }
        // RFC 6298 (5.3): restart the timer on an ACK of new data.
        self.rto_deadline = if self.snd_una >= self.max_sent { None } else { Some(now + self.rto) };
        true
    }

    /// Send while pipe < cwnd: in recovery and loss, RFC 6675's NextSeg (lost segments first),
    /// else new data.
    fn send_sack(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mut sb = self.sb.take().expect("send_sack needs the scoreboard");
        let wnd = self.whole_window();
        let recovering = matches!(self.ca, CaState::Recovery | CaState::Loss);
        let mut pipe = sb.pipe(self.snd_una, self.max_sent);
        let pipe_before = pipe;
        self.blocked_on_nic = false;
        self.cwnd_limited = false;
        loop {
            if pipe >= wnd {
                self.cwnd_limited = true;
                break;
            }
            let can_new = self.seg.has(self.snd_nxt);
            let next = if recovering { sb.next_seg(self.snd_una, can_new) } else { can_new.then_some(NextSeg::New) };
            let Some(next) = next else { break };
            if self.tx_budget == 0 {
                self.blocked_on_nic = true;
                break;
            }
            self.tx_budget -= 1;
            match next {
                NextSeg::Retransmit(seq) => {
                    sb.retransmitted(seq, self.snd_nxt);
                    self.transmit(seq, now, out);
                }
                NextSeg::New => {
                    let seq = self.snd_nxt;
                    self.transmit(seq, now, out);
                    self.snd_nxt += 1;
                    self.max_sent = self.max_sent.max(self.snd_nxt);
                }
            }
            pipe += 1;
        }
        self.sb = Some(sb);
        self.note_usage(pipe, pipe > pipe_before);
    }
}

/// Delayed-ACK state (DCTCP receiver state machine).
pub struct DelayedAck {
    pub segments: u32,
    pub timeout: Time,
    pending: u32,
    ce_state: bool,
    pending_ts: Time,
    pub deadline: Option<Time>,
    pub event_at: Option<Time>,
}

impl DelayedAck {
    pub fn new(segments: u32, timeout: Time) -> Self {
        DelayedAck {
            segments,
            timeout,
            pending: 0,
            ce_state: false,
            pending_ts: Time::ZERO,
            deadline: None,
            event_at: None,
        }
    }

    /// Clear the pending delayed ACK; returns its (ECN-Echo, timestamp echo) if there was one.
    fn flush(&mut self) -> Option<(bool, Time)> {
        if self.pending == 0 {
            return None;
        }
        self.pending = 0;
        self.deadline = None;
        Some((self.ce_state, self.pending_ts))
    }
}

/// Linux's quick-ACK mode of a delaying receiver (`tcp_input.c`): while `left` > 0 every ACK the
/// receiver would delay goes at once, and each ACK sent takes one off (`tcp_dec_quickack_mode`).
/// `tcp_event_data_recv` enters it on the connection's first in-order data, and again on in-order
/// data after a silence longer than the receiver's RTO ("too long gap: apparently sender failed to
/// restart window"), with `tcp_incr_quickack`'s count rcv_wnd / (2 MSS), at least 2, at most
/// TCP_MAX_QUICKACKS = 16. Since Linux 4.19 the initial receive window is ~64 KB
/// (`tcp_select_initial_window`: the space rounded down to whole MSS, at most U16_MAX; no
/// 10-segment cap unless a route sets initrwnd): 64 240 B of 1460 B segments, so 22 and 16 quick
/// ACKs from the first data on; 9 000 B jumbo frames (MSS 8 960 B) 62 720 B, so 3 (kernels
/// 3.x-4.18, with a 20-segment window, gave 10; a review had first modelled the older 10-segment
/// window's 5). After a silence the window has grown: 16.
/// The receiver's RTO is taken as the flow's `min_rto` (Linux's receiver: its handshake SRTT plus
/// the RTTVAR floor of min_rto). Without the mode a lone in-order segment waited the 40 ms
/// delayed-ACK timer: 60 DCTCP flows of 32 KB into a 30-packet buffer had 40 of their first RTT
/// samples at 40 ms and completion times at 40 / 240 / 640 ms (a review).
#[derive(Clone, Debug)]
pub struct QuickAck {
    left: u32,
    /// The count at the first data: rcv_wnd / (2 MSS) of the initial window, in [2, 16].
    first: u32,
    /// The silence after which in-order data re-enters the mode (the receiver's RTO).
    gap: Time,
    /// When the last in-order segment came.
    last_data: Option<Time>,
}

/// Linux's TCP_MAX_QUICKACKS, which rcv_wnd / (2 MSS) exceeds from the first data on.
const MAX_QUICKACKS: u32 = 16;

impl QuickAck {
    /// The mode of a receiver of `mss_bytes` segments whose RTO is `gap`.
    pub fn new(gap: Time, mss_bytes: u32) -> Self {
        let mss = mss_bytes.max(1) as u64;
        let wnd = (u16::MAX as u64 / mss) * mss; // Linux >= 4.19's initial window, whole MSS
        let first = (wnd / (2 * mss)).clamp(2, MAX_QUICKACKS as u64) as u32;
        QuickAck { left: 0, first, gap, last_data: None }
    }

    /// In-order data at `now` (`tcp_event_data_recv`).
    fn on_in_order(&mut self, now: Time) {
        let count = match self.last_data {
            None => self.first,
            Some(t) if now.0.saturating_sub(t.0) > self.gap.0 => MAX_QUICKACKS,
            Some(_) => 0,
        };
        self.left = self.left.max(count);
        self.last_data = Some(now);
    }
}

pub struct Receiver {
    pub flow: FlowId,
    /// Receiver host (source of ACKs) and the data sender (their destination).
    pub host: NodeId,
    pub peer: NodeId,
    /// Next in-order segment expected (cumulative ACK).
    pub next_expected: u64,
    /// Out-of-order segments held (all above `next_expected`).
    ooo: RangeSet,
    /// SACK block generation (`sack = true`).
    sack: Option<SackReceiver>,
    /// A CE-state change also ACKs the packet that changed it at once (`ce_quickack`).
    ce_quickack: bool,
    /// Pure ACKs carry ECT(0) (`ect_acks`).
    ect_acks: bool,
    /// A delayed ACK is not held for the segment that ends the flow's write (the linux profile:
    /// Linux's pushed-segment ACK, module docs).
    push_acks: bool,
    seg: Segmenter,
    pub delivered_bytes: u64,
    pub delivered_pkts: u64,
    /// Data packets received with CE.
    pub ce_received: u64,
    ack_bytes: u32,
    pub delack: Option<DelayedAck>,
    /// Linux's quick-ACK mode (the linux profile with delayed ACKs).
    quickack: Option<QuickAck>,
}

impl Receiver {
    pub fn new(
        flow: FlowId,
        host: NodeId,
        peer: NodeId,
        seg: Segmenter,
        ack_bytes: u32,
        delack: Option<DelayedAck>,
    ) -> Self {
        Receiver {
            flow,
            host,
            peer,
            next_expected: 0,
            ooo: RangeSet::default(),
            sack: None,
            ce_quickack: false,
            ect_acks: false,
            push_acks: false,
            seg,
            delivered_bytes: 0,
            delivered_pkts: 0,
            ce_received: 0,
            ack_bytes,
            delack,
            quickack: None,
        }
    }

    /// The receiver side of the transport options: SACK blocks, the Linux CE quick ACK, ECT on
    /// ACKs, and for the linux profile the ACK of the write's end and, when it delays ACKs,
    /// Linux's quick-ACK mode ([`QuickAck`]) with `rto` as its RTO.
    pub fn with_options(mut self, opts: &TcpOptions, rto: Time) -> Self {
        self.sack = opts.sack.then(SackReceiver::default);
        self.ce_quickack = opts.ce_quickack;
        self.ect_acks = opts.ect_acks;
        self.push_acks = opts.profile == Profile::Linux;
        if self.push_acks && self.delack.as_ref().is_some_and(|d| d.segments > 1) {
            self.quickack = Some(QuickAck::new(rto, self.seg.payload));
        }
        self
    }

    /// The SACK blocks of the ACK with `aux` id (when it reaches the sender).
    pub fn take_sack(&mut self, aux: u32) -> SackBlocks {
        self.sack.as_mut().map_or_else(SackBlocks::default, |s| s.take(aux))
    }

    /// An ACK sent after segment `seq` arrived, with SACK blocks when `sack` is on.
    fn ack_after(&mut self, seq: u64, ece: bool, ts: Time) -> Packet {
        let mut p = self.ack(ece, ts);
        if let Some(sr) = &mut self.sack {
            let b = sr.blocks(seq, &self.ooo);
            p.size += b.option_bytes();
            p.aux = sr.log(b);
        }
        p
    }

    fn ack(&mut self, ece: bool, ts: Time) -> Packet {
        if let Some(q) = &mut self.quickack {
            q.left = q.left.saturating_sub(1); // every ACK sent (tcp_event_ack_sent)
        }
        Packet {
            kind: Kind::Ack,
            flow: self.flow,
            src: self.host,
            dst: self.peer,
            size: self.ack_bytes,
            seq: self.next_expected,
            ect: self.ect_acks,
            ce: false,
            ece,
            ts,
            aux: 0,
        }
    }

    /// Accept a data packet; ACKs go to `out`.
    pub fn on_data(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        if pkt.ce {
            self.ce_received += 1;
        }
        // DCTCP state machine: a CE change flushes the pending delayed ACK with the old state
        // (and, with `ce_quickack`, Linux's tcp_dctcp.c also ACKs this packet at once).
        let mut quick = false;
        if let Some(d) = &mut self.delack {
            if pkt.ce != d.ce_state {
                let flushed = d.flush();
                d.ce_state = pkt.ce;
                quick = self.ce_quickack;
                if let Some((ce, ts)) = flushed {
                    let a = self.ack_after(pkt.seq, ce, ts);
                    out.push(a);
                }
            }
        }
        let in_order = pkt.seq == self.next_expected;
        let had_holes = !self.ooo.is_empty();
        if in_order {
            self.deliver_next();
            while let Some(&(a, b)) = self.ooo.ranges().first() {
                if a != self.next_expected {
                    break;
                }
                for _ in a..b {
                    self.deliver_next();
                }
                self.ooo.remove_below(b);
            }
        } else if pkt.seq > self.next_expected {
            self.ooo.insert(pkt.seq);
        }
        // The application has read the whole write (its PSH segment) and the buffer is empty.
        let write_read = self.push_acks && in_order && self.seg.total_segs == Some(self.next_expected);
        // Linux's quick-ACK mode: entered on in-order data (the first, or after a long silence).
        let quickack = match &mut self.quickack {
            Some(q) => {
                if in_order {
                    q.on_in_order(now);
                }
                q.left > 0
            }
            None => false,
        };
        let ack = match &mut self.delack {
            None => Some((pkt.ce, pkt.ts)),
            Some(d) => {
                if d.pending == 0 {
                    d.pending_ts = pkt.ts;
                }
                d.pending += 1;
                // ACK at once when out of order, when filling a hole, after `segments` packets, or
                // (linux) when the write has been read.
                if quick || quickack || !in_order || had_holes || d.pending >= d.segments || write_read {
                    d.flush()
                } else {
                    d.deadline.get_or_insert(now + d.timeout);
                    None
                }
            }
        };
        if let Some((ce, ts)) = ack {
            let a = self.ack_after(pkt.seq, ce, ts);
            out.push(a);
        }
    }

    /// The segments held out of order (above `next_expected`), as sorted half-open ranges.
    pub fn held_ranges(&self) -> &[(u64, u64)] {
        self.ooo.ranges()
    }

    /// Payload of the segments of `ranges` below `next_expected` (delivered in order), bytes.
    pub fn delivered_of(&self, ranges: &[(u64, u64)]) -> u64 {
        ranges
            .iter()
            .filter(|&&(a, _)| a < self.next_expected)
            .map(|&(a, b)| self.seg.bytes_in(a, b.min(self.next_expected)))
            .sum()
    }

    /// Hand segment `next_expected` to the application.
    #[inline]
    fn deliver_next(&mut self) {
        self.delivered_bytes += self.seg.payload_of(self.next_expected) as u64;
        self.delivered_pkts += 1;
        self.next_expected += 1;
    }

    /// Delayed-ACK timer fired.
    pub fn on_delack_timeout(&mut self, out: &mut Vec<Packet>) {
        if let Some((ce, ts)) = self.delack.as_mut().and_then(DelayedAck::flush) {
            let a = self.ack(ce, ts);
            out.push(a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ProtocolSpec;

    fn spec(protocol: ProtocolSpec) -> FlowSpec {
        FlowSpec::long_lived("a", "b", protocol)
    }

    fn ack(seq: u64, ece: bool, ts: Time) -> Packet {
        Packet { kind: Kind::Ack, flow: 0, src: 1, dst: 0, size: 40, seq, ect: false, ce: false, ece, ts, aux: 0 }
    }

    #[test]
    fn linux_grows_in_loss_whatever_the_acks_ecn_echo() {
        // Linux's Loss state is not a reduction: ECN-Echo starts CWR only from Open
        // (`tcp_may_raise_cwnd` lets an ACK with ECE raise the window first), so after a timeout
        // slow start grows on ECE ACKs as on others: 1 -> 2 -> 3 for two ACKs of one segment each.
        // The engine had frozen the window on ECE in Loss (an audit). ns-2 answers ECE once per
        // window whatever the state, unchanged.
        use crate::scenario::Profile;
        for (profile, ece, want) in [
            (Profile::Linux, false, 3.0),
            (Profile::Linux, true, 3.0),
            (Profile::Ns2, false, 3.0),
            (Profile::Ns2, true, 1.0),
        ] {
            let f = FlowSpec { protocol: ProtocolSpec::newreno(true), ..flow(profile, true) };
            let mut s = Sender::new(0, 0, 1, &f, 1500, 40);
            let mut out = Vec::new();
            s.start(Time(0), &mut out);
            s.on_timeout(Time(20_000_000_000), &mut out);
            assert_eq!((s.ca, s.cwnd), (CaState::Loss, 1.0), "{profile:?}");
            for seq in [1, 2] {
                s.on_ack_with_sack(&ack(seq, ece, Time(0)), &[], Time(20_000_100_000), &mut out);
            }
            assert_eq!(s.cwnd, want, "{profile:?}, ECE {ece}");
        }
    }

    #[test]
    fn newreno_fast_retransmit_partial_and_full_ack() {
        let mut s = Sender::new(0, 0, 1, &spec(ProtocolSpec::newreno(false)), 1500, 40);
        s.ssthresh = 5.0; // congestion avoidance from the start
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        assert_eq!(out.len(), 10, "initial window of 10 segments");
        out.clear();
        // Segments 3 and 6 are lost. ACKs for 0, 1, 2 arrive, then dupacks of 3.
        let t = Time(100_000_000);
        for a in 1..=3 {
            s.on_ack(&ack(a, false, Time(0)), t, &mut out);
        }
        let cwnd_before = s.cwnd;
        out.clear();
        for _ in 0..3 {
            s.on_ack(&ack(3, false, Time(0)), t, &mut out);
        }
        assert!(s.in_recovery);
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(out[0].seq, 3, "fast retransmit of the first hole");
        let flight = (s.max_sent - 3) as f64;
        assert!((s.ssthresh - (flight / 2.0).max(2.0)).abs() < 1e-12);
        assert!((s.cwnd - (s.ssthresh + 3.0)).abs() < 1e-12, "cwnd {} (was {cwnd_before})", s.cwnd);
        out.clear();
        // Partial ACK up to 6 (hole at 6): retransmit 6 at once, stay in recovery.
        s.on_ack(&ack(6, false, Time(0)), t, &mut out);
        assert!(s.in_recovery);
        assert_eq!(out[0].seq, 6);
        // Full ACK of everything sent before recovery: leave recovery, cwnd <= ssthresh.
        let recover = s.max_sent;
        out.clear();
        s.on_ack(&ack(recover, false, Time(0)), t, &mut out);
        assert!(!s.in_recovery);
        assert!(s.cwnd <= s.ssthresh + 1e-12);
        assert_eq!(s.stats.timeouts, 0);
    }

    #[test]
    fn duplicate_acks_at_recover_after_a_timeout_do_not_start_a_fast_retransmit() {
        // RFC 6582 §3.2 step 1 (ns-2's careful NewReno, `highest_ack_ > recover_`): after a
        // timeout, go-back-N resends segments the receiver already has, and their duplicate ACKs
        // reach exactly `recover` (everything sent before the timeout). They are not a new loss:
        // a fast retransmit there resends in-flight data whose duplicates start the next one
        // (a livelock of one spurious recovery per RTT with no drop at all). Three duplicate
        // ACKs beyond `recover` are a new loss and do start one.
        let mut s = Sender::new(0, 0, 1, &spec(ProtocolSpec::newreno(false)), 1500, 40);
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        assert_eq!(s.max_sent, 10);
        out.clear();
        let t = Time(20_000_000_000);
        s.on_timeout(t, &mut out);
        assert_eq!((s.recover, out[0].seq), (10, 0), "go back N from 0; recover = the window sent");
        out.clear();
        s.on_ack(&ack(10, false, Time(0)), t, &mut out); // the receiver had 1..9: the ACK jumps
        assert!(s.max_sent > 10, "new data after the jump");
        for _ in 0..3 {
            s.on_ack(&ack(10, false, Time(0)), t, &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, 0, "duplicate ACKs at recover = 10");
        assert!(!s.in_recovery);
        s.on_ack(&ack(11, false, Time(0)), t, &mut out);
        out.clear();
        for _ in 0..3 {
            s.on_ack(&ack(11, false, Time(0)), t, &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, 1, "duplicate ACKs at 11 > recover");
        assert_eq!(out[0].seq, 11);
    }

    #[test]
    fn a_timeout_in_recovery_halves_the_window_the_recovery_set_not_what_inflation_sent() {
        use crate::scenario::Profile;
        // A recovery without SACK repairs one hole per round trip; while it lasts, every
        // duplicate ACK inflates the window by one and sends a new segment, so the flight grows.
        // A timeout then halves the window the recovery set (ns-2 clears dupwnd_ before halving
        // cwnd_), not the flight: with 200 duplicate ACKs the flight is ~210 and half of it, 105,
        // sent the slow start after the timeout into the buffer again (coexist-fig4, RED min_th
        // 90: a cycle of burst losses and timeouts in 2 of 10 seeds). Linux keeps the
        // recovery's ssthresh (tcp_enter_loss in Recovery).
        for (profile, halves) in [(Profile::Ns2, true), (Profile::Linux, false)] {
            let mut f = spec(ProtocolSpec::newreno(false));
            f.tcp.profile = profile;
            f.tcp.sack = Some(false);
            f.tcp.abc = Some(false);
            let mut s = Sender::new(0, 0, 1, &f, 1500, 40);
            s.ssthresh = 5.0; // congestion avoidance from the start
            let mut out = Vec::new();
            s.start(Time(0), &mut out);
            let t = Time(100_000_000);
            s.on_ack(&ack(1, false, Time(0)), t, &mut out);
            for _ in 0..3 {
                s.on_ack(&ack(1, false, Time(0)), t, &mut out);
            }
            assert!(s.in_recovery);
            let set = s.ssthresh;
            for _ in 0..200 {
                s.on_ack(&ack(1, false, Time(0)), t, &mut out);
            }
            assert!(s.flight() > 200.0, "{profile:?}: the inflation sent new data: flight {}", s.flight());
            s.on_timeout(Time(20_000_000_000), &mut out);
            let want = if halves { (set / 2.0).max(2.0) } else { set };
            assert_eq!(s.ssthresh, want, "{profile:?}: recovery set {set}");
            // A backed-off timeout (its segment lost again) holds it: half the flight, which still
            // holds what the inflation sent, would bring it back (RFC 5681 §3.1).
            s.on_timeout(Time(60_000_000_000), &mut out);
            assert_eq!(s.ssthresh, want, "{profile:?}: backed-off timeout");
        }
    }

    #[test]
    fn ecn_cut_at_most_once_per_window() {
        let mut s = Sender::new(0, 0, 1, &spec(ProtocolSpec::dctcp(1.0 / 16.0, 1.0)), 1500, 40);
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        let t = Time(100_000_000);
        // Every ACK of the first window carries ECE: one cut only (alpha = 1 -> halve).
        for a in 1..=10 {
            s.on_ack(&ack(a, true, Time(0)), t, &mut out);
        }
        assert_eq!(s.stats.ecn_cuts, 1);
        assert!((s.cwnd - 5.0).abs() < 1e-12, "cwnd {}", s.cwnd);
        // An ECE ACK for data sent after the cut triggers the next cut, and only one.
        let next = s.snd_nxt;
        for a in 11..=next {
            s.on_ack(&ack(a, true, Time(0)), t, &mut out);
        }
        assert_eq!(s.stats.ecn_cuts, 2);
        // ECE ACKs never open the window, and the floor of 2 packets holds.
        let mut last = s.cwnd;
        for _ in 0..200 {
            let a = s.snd_una + 1;
            assert!(a <= s.snd_nxt);
            s.on_ack(&ack(a, true, Time(0)), t, &mut out);
            assert!(s.cwnd <= last + 1e-12);
            last = s.cwnd;
        }
        assert!((s.cwnd - 2.0).abs() < 1e-12, "cwnd {}", s.cwnd);
    }

    #[test]
    fn dx_window_ignores_loss_and_ecn_but_recovery_retransmits() {
        use crate::scenario::BaseRttSpec;
        let mut spec = spec(ProtocolSpec::dx(BaseRttSpec::FixedPs(100_000_000)));
        spec.init_cwnd_pkt = 8.0;
        let mut s = Sender::new(0, 0, 1, &spec, 1500, 40);
        assert!(!s.cc.ect(), "DX packets are not ECN-capable");
        assert_eq!(s.min_cwnd, 1.0, "DX's default floor is one segment");
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        assert_eq!(out.len(), 8);
        out.clear();
        // ACK 1 (RTT 100 us = R0, with ECE): no ECN cut, no congestion-avoidance increase.
        let t = Time(100_000_000);
        s.on_ack(&ack(1, true, Time(0)), t, &mut out);
        assert_eq!((s.cwnd, s.stats.ecn_cuts), (8.0, 0));
        // Segment 1 lost: three duplicate ACKs -> fast retransmit of segment 1, window unchanged.
        for _ in 0..3 {
            s.on_ack(&ack(1, false, Time(0)), t, &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        assert!(out.iter().any(|p| p.seq == 1), "the hole is retransmitted");
        assert_eq!(s.cwnd, 8.0, "no halving, no inflation");
        s.on_ack(&ack(1, false, Time(0)), t, &mut out);
        assert_eq!(s.cwnd, 8.0);
        // The full ACK leaves recovery; the window is still DX's.
        let recover = s.max_sent;
        s.on_ack(&ack(recover, false, Time(0)), t, &mut out);
        assert!(!s.in_recovery);
        // Every sample equalled R0: the round that just ended (ACK past the first round's end) is
        // an increase, W + 1.
        assert_eq!(s.stats.rtt_rounds, 1);
        assert_eq!(s.stats.rtt_decreases, 0);
        assert_eq!(s.cwnd, 9.0);
    }

    #[test]
    fn improved_fairness_subtracts_alpha_over_2_per_marked_ack() {
        let mut s = Sender::new(0, 0, 1, &spec(ProtocolSpec::dctcp_improved_fairness(1.0 / 16.0, 1.0)), 1500, 40);
        s.ssthresh = 5.0; // congestion avoidance
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        let t = Time(100_000_000);
        // Marked ACK (alpha = 1 at first): W <- W + 1/W - 1/2 (eq. 36), both terms on the window
        // before the ACK (10 + 0.1 - 0.5 = 9.6, not (10 - 0.5) + 1/9.5), every ACK, no
        // once-per-window. The fraction removed per marked ACK is (1/2) / (W + 1/W).
        let w0 = s.cwnd;
        s.on_ack(&ack(1, true, Time(0)), t, &mut out);
        assert!((s.cwnd - (w0 + 1.0 / w0 - 0.5)).abs() < 1e-12, "cwnd {}", s.cwnd);
        let frac1 = 0.5 / (w0 + 1.0 / w0);
        let w = s.cwnd;
        s.on_ack(&ack(2, true, Time(0)), t, &mut out);
        assert!((s.cwnd - (w + 1.0 / w - 0.5)).abs() < 1e-12, "second marked ACK also decreases");
        assert_eq!(s.stats.ecn_cuts, 2);
        let frac2 = 0.5 / (w + 1.0 / w);
        assert!((s.ecn_cut_frac_sum - (frac1 + frac2)).abs() < 1e-12, "{}", s.ecn_cut_frac_sum);
        // An unmarked ACK: + 1/W only.
        let w = s.cwnd;
        s.on_ack(&ack(3, false, Time(0)), t, &mut out);
        assert!((s.cwnd - (w + 1.0 / w)).abs() < 1e-12);
    }

    #[test]
    fn window_integral_is_exact_between_acks() {
        // cwnd 10 from t = 0 to the first ACK at 100 us (slow start: 11 after it), then held to 300 us:
        // the time-weighted mean is (10 x 100 + 11 x 200) / 300 packets.
        let mut s = Sender::new(0, 0, 1, &spec(ProtocolSpec::newreno(false)), 1500, 40);
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        s.on_ack(&ack(1, false, Time(0)), Time(100_000_000), &mut out);
        assert_eq!(s.cwnd, 11.0);
        s.integrate(Time(300_000_000));
        let a = s.areas;
        assert_eq!(a.active_ps, 300_000_000);
        assert!((a.cwnd_pkt_ps / a.active_ps as f64 - (10.0 * 100.0 + 11.0 * 200.0) / 300.0).abs() < 1e-12);
        assert!(a.alpha_ps.is_nan(), "NewReno has no alpha");
    }

    #[test]
    fn rto_follows_rfc6298_and_backs_off() {
        let mut s = Sender::new(0, 0, 1, &spec(ProtocolSpec::newreno(false)), 1500, 40);
        s.min_rto = Time(1_000_000); // 1 us so the estimate shows
        s.rtt_sample(Time(100_000_000)); // 100 us
        assert_eq!(s.srtt, Some(Time(100_000_000)));
        assert_eq!(s.rttvar, Time(50_000_000));
        assert_eq!(s.rto, Time(100_000_000 + 4 * 50_000_000));
        s.rtt_sample(Time(100_000_000));
        assert_eq!(s.rttvar, Time(37_500_000));
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        let rto = s.rto;
        s.on_timeout(Time(1_000_000_000), &mut out);
        assert_eq!(s.rto, Time(2 * rto.0));
        assert_eq!(s.cwnd, 1.0);
        assert_eq!(s.stats.timeouts, 1);
    }

    #[test]
    fn only_acks_of_new_data_feed_the_rto_estimator() {
        // RFC 6298 / ns-2 `newack` / Linux FLAG_ACKED: after 13 timeouts the timer is backed off
        // to 60 s; a duplicate ACK (nothing new acknowledged, no SACK) must leave it there (it
        // had reset it to ~10 ms, min_rto), and the next ACK of new data takes the sample.
        let mut s = Sender::new(0, 0, 1, &spec(ProtocolSpec::newreno(false)), 1500, 40);
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        s.on_ack(&ack(1, false, Time(0)), Time(100_000_000), &mut out); // 100 us sample
        let mut t = Time(1_000_000_000);
        for _ in 0..13 {
            s.on_timeout(t, &mut out);
            t += s.rto;
        }
        assert_eq!(s.rto, MAX_RTO);
        let srtt = s.srtt;
        s.on_ack(&ack(1, false, t - Time(100_000_000)), t, &mut out); // a duplicate
        assert_eq!((s.rto, s.srtt), (MAX_RTO, srtt), "a duplicate ACK fed the estimator");
        s.on_ack(&ack(2, false, t - Time(100_000_000)), t, &mut out); // new data
        assert!(s.rto < Time(Time::PS_PER_S), "an ACK of new data took no sample: rto {:?}", s.rto);
    }

    fn data(seq: u64, ce: bool) -> Packet {
        Packet {
            kind: Kind::Data,
            flow: 0,
            src: 0,
            dst: 1,
            size: 1500,
            seq,
            ect: true,
            ce,
            ece: false,
            ts: Time(seq),
            aux: 0,
        }
    }

    #[test]
    fn held_segments_are_counted_by_their_payload_once_delivered() {
        // 5 segments, the last of 100 bytes: 1 and 3, 4 arrive first (held), then 0 and 2.
        let seg = Segmenter::new(Some(4 * 1460 + 100), 1460);
        assert_eq!((seg.bytes_in(0, 5), seg.bytes_in(3, 5), seg.bytes_in(1, 2)), (4 * 1460 + 100, 1560, 1460));
        let mut r = Receiver::new(0, 1, 0, seg, 40, None);
        let mut out = Vec::new();
        for s in [1, 3, 4] {
            r.on_data(&data(s, false), Time(0), &mut out);
        }
        let held = r.held_ranges().to_vec();
        assert_eq!(held, vec![(1, 2), (3, 5)]);
        assert_eq!(r.delivered_of(&held), 0, "none delivered yet");
        r.on_data(&data(0, false), Time(0), &mut out);
        assert_eq!((r.delivered_bytes, r.delivered_of(&held)), (2 * 1460, 1460), "0 and 1 delivered, 1 was held");
        r.on_data(&data(2, false), Time(0), &mut out);
        assert_eq!((r.delivered_bytes, r.delivered_of(&held)), (4 * 1460 + 100, 1460 + 1560));
    }

    #[test]
    fn a_linux_receiver_acks_its_first_segments_at_once_and_again_after_a_silence() {
        // Linux (tcp_input.c, >= 4.19): the first in-order data enters quick-ACK mode with
        // min(rcv_wnd / (2 MSS), 16) = min(65535 / 2920, 16) = 16 ACKs at once; then every second
        // segment (delayed ACK of 2 segments). After a silence longer than the RTO (200 ms here)
        // in-order data enters it again: 16 more. The ns-2 profile's receiver has no such mode.
        use crate::scenario::{Profile, TcpOptions};
        let opts = |profile| TcpOptions {
            profile,
            ecn_response: EcnReaction::Immediate,
            cwr_freeze: false,
            sack: false,
            abc: false,
            ce_quickack: false,
            dctcp_fixed_point: false,
            ect_acks: false,
        };
        let rto = Time(200_000_000_000);
        let acks_after = |profile, times: &[u64]| -> Vec<usize> {
            let mut r =
                Receiver::new(0, 1, 0, Segmenter::new(None, 1460), 40, Some(DelayedAck::new(2, Time(40_000_000_000))))
                    .with_options(&opts(profile), rto);
            let mut out = Vec::new();
            times
                .iter()
                .enumerate()
                .map(|(seq, &t)| {
                    let before = out.len();
                    r.on_data(&data(seq as u64, false), Time(t), &mut out);
                    out.len() - before
                })
                .collect()
        };
        let us = 1_000_000u64;
        let first: Vec<u64> = (0..20).map(|i| i * us).collect();
        let mut want = vec![1; 16];
        want.extend([0, 1, 0, 1]);
        assert_eq!(acks_after(Profile::Linux, &first), want);
        assert_eq!(acks_after(Profile::Ns2, &first[..8]), [0, 1, 0, 1, 0, 1, 0, 1]);
        // 20 segments, then 20 more after 201 ms of silence: 16 at once, then every second
        let mut times = first.clone();
        times.extend((0..20).map(|i| 220_000 * us + i * us));
        assert_eq!(acks_after(Profile::Linux, &times)[20..], want);
        // a silence within the RTO does not re-enter it
        let mut times = first;
        times.extend((0..4).map(|i| 150_000 * us + i * us));
        assert_eq!(acks_after(Profile::Linux, &times)[20..], [0, 1, 0, 1]);
        // jumbo frames (MSS 8 960 B): the initial window 62 720 B gives 62 720 / 17 920 = 3
        let q = QuickAck::new(rto, 8960);
        assert_eq!((q.first, QuickAck::new(rto, 1460).first, QuickAck::new(rto, 40_000).first), (3, 16, 2));
    }

    #[test]
    fn receiver_acks_cumulatively_and_echoes_ce() {
        let seg = Segmenter::new(Some(3 * 1460), 1460);
        let mut r = Receiver::new(0, 1, 0, seg, 40, None);
        let mut out = Vec::new();
        r.on_data(&data(0, false), Time(0), &mut out);
        r.on_data(&data(2, true), Time(0), &mut out);
        assert_eq!(out[1].seq, 1, "dup ack for the hole");
        assert!(out[1].ece);
        r.on_data(&data(1, false), Time(0), &mut out);
        assert_eq!(out[2].seq, 3);
        assert_eq!(r.delivered_bytes, 3 * 1460);
    }

    #[test]
    fn delayed_ack_flushes_on_ce_change() {
        let seg = Segmenter::new(None, 1460);
        let mut r = Receiver::new(0, 1, 0, seg, 40, Some(DelayedAck::new(2, Time(1_000_000))));
        let mut out = Vec::new();
        r.on_data(&data(0, false), Time(0), &mut out);
        assert!(out.is_empty(), "first packet waits");
        r.on_data(&data(1, true), Time(0), &mut out);
        // The CE change sends the pending ACK for segment 0 with ECE = 0 at once.
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].seq, out[0].ece), (1, false));
        r.on_data(&data(2, true), Time(0), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!((out[1].seq, out[1].ece), (3, true));
    }

    #[test]
    fn a_linux_receiver_acks_the_end_of_the_write_at_once() {
        use crate::scenario::Profile;
        // Three segments, ACKs delayed to every 2nd or 40 ms: segment 1 is ACKed with segment 0;
        // segment 2, the flow's last (its write's PSH), is ACKed at once under the linux profile
        // (Linux's pushed-segment ACK) and waits the timer under ns2 (ns-2's DelAckSink).
        for (profile, at_once) in [(Profile::Linux, true), (Profile::Ns2, false)] {
            let s = Sender::new(0, 0, 1, &flow(profile, false), 1500, 40);
            let seg = Segmenter::new(Some(3 * 1460 - 500), 1460);
            let delack = Some(DelayedAck::new(2, Time(40_000_000_000)));
            let mut r = Receiver::new(0, 1, 0, seg, 40, delack).with_options(&s.opts, Time(200_000_000_000));
            r.quickack = None; // the pushed-segment ACK alone (quick-ACK mode: its own test above)
            let mut out = Vec::new();
            r.on_data(&data(0, false), Time(0), &mut out);
            assert!(out.is_empty(), "{profile:?}: the first segment waits");
            r.on_data(&data(1, false), Time(1), &mut out);
            assert_eq!(out.iter().map(|a| a.seq).collect::<Vec<_>>(), vec![2]);
            r.on_data(&data(2, false), Time(2), &mut out);
            let acks: Vec<u64> = out.iter().map(|a| a.seq).collect();
            assert_eq!(acks, if at_once { vec![2, 3] } else { vec![2] }, "{profile:?}");
            assert_eq!(r.delack.as_ref().unwrap().deadline.is_some(), !at_once, "{profile:?}");
        }
    }

    /// A two-host path for hand-worked traces: one-way delay `D`, each data packet takes 1 us on
    /// the sender's link (so a window's packets arrive 1 us apart), ACKs are small and never
    /// lost. `drop`: segments whose first transmission is lost; `late`: extra delay of a segment's
    /// first transmission, us.
    struct Path {
        s: Sender,
        r: Receiver,
        drop: Vec<u64>,
        late: Vec<(u64, u64)>,
        /// Segments whose retransmission is CE-marked on its way.
        mark_retx: Vec<u64>,
        /// The controller's alpha after each ACK the sender took: (time, snd_una, alpha).
        alphas: Vec<(u64, u64, f64)>,
        /// (time, order, packet, towards the receiver)
        q: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u64, u64)>>,
        pkts: Vec<(Packet, bool)>,
        link_free: u64,
        sent_once: std::collections::HashSet<u64>,
        /// Times (ps) at which the sender retransmitted, and the segment.
        retx: Vec<(u64, u64)>,
    }

    const D: u64 = 50_000_000; // 50 us one way: RTT 100 us (+ 1 us per packet on the link)
    const LINK: u64 = 1_000_000;

    impl Path {
        fn new(mut spec: FlowSpec, drop: &[u64], late: &[(u64, u64)]) -> Path {
            spec.init_cwnd_pkt = 20.0;
            spec.min_rto_ps = Some(10_000_000_000);
            let s = Sender::new(0, 0, 1, &spec, 1500, 40);
            let r = Receiver::new(0, 1, 0, Segmenter::new(None, 1460), 40, None).with_options(&s.opts, s.rto);
            Path {
                s,
                r,
                drop: drop.to_vec(),
                late: late.to_vec(),
                mark_retx: Vec::new(),
                alphas: Vec::new(),
                q: Default::default(),
                pkts: Vec::new(),
                link_free: 0,
                sent_once: Default::default(),
                retx: Vec::new(),
            }
        }

        fn push_data(&mut self, now: u64, out: Vec<Packet>) {
            for mut p in out {
                let first = self.sent_once.insert(p.seq);
                p.ce |= !first && self.mark_retx.contains(&p.seq);
                if !first {
                    self.retx.push((now, p.seq));
                }
                self.link_free = self.link_free.max(now) + LINK;
                if first && self.drop.contains(&p.seq) {
                    continue;
                }
                let extra =
                    if first { self.late.iter().find(|l| l.0 == p.seq).map_or(0, |l| l.1 * 1_000_000) } else { 0 };
                let n = self.pkts.len() as u64;
                self.pkts.push((p, true));
                self.q.push(std::cmp::Reverse((self.link_free + D + extra, n, n)));
            }
        }

        /// Deliver packet `i` at `t`: a data packet to the receiver (its ACKs go back on the
        /// wire), an ACK (with its SACK blocks) to the sender, whose new data is left in `out`.
        /// Returns whether it was a data packet.
        fn deliver(&mut self, t: u64, i: u64, out: &mut Vec<Packet>) -> bool {
            let (p, to_rx) = self.pkts[i as usize];
            if to_rx {
                self.r.on_data(&p, Time(t), out);
                for a in std::mem::take(out) {
                    let n = self.pkts.len() as u64;
                    self.pkts.push((a, false));
                    self.q.push(std::cmp::Reverse((t + D, n, n)));
                }
            } else {
                let blocks = self.r.take_sack(p.aux);
                self.s.on_ack_with_sack(&p, blocks.as_slice(), Time(t), out);
                self.alphas.push((t, self.s.snd_una, self.s.cc.alpha()));
            }
            to_rx
        }

        /// Run until `until` ps; returns the time snd_una first reached `target`.
        fn run(&mut self, until: u64, target: u64) -> Option<u64> {
            let mut out = Vec::new();
            self.s.start(Time(0), &mut out);
            self.push_data(0, std::mem::take(&mut out));
            let mut reached = None;
            loop {
                // The timer fires when it is due before the next delivery (or nothing is in flight).
                let next = self.q.peek().map(|e| (e.0).0);
                if let Some(dl) = self.s.rto_deadline.filter(|dl| next.is_none_or(|t| dl.0 <= t)) {
                    if dl.0 > until {
                        break;
                    }
                    self.s.on_timeout(dl, &mut out);
                    self.push_data(dl.0, std::mem::take(&mut out));
                    continue;
                }
                let Some(std::cmp::Reverse((t, _, i))) = self.q.pop() else { break };
                if t > until {
                    break;
                }
                if !self.deliver(t, i, &mut out) {
                    self.push_data(t, std::mem::take(&mut out));
                    if reached.is_none() && self.s.snd_una >= target {
                        reached = Some(t);
                    }
                }
            }
            reached
        }
    }

    fn flow(profile: crate::scenario::Profile, sack: bool) -> FlowSpec {
        let mut f = spec(ProtocolSpec::newreno(false));
        f.tcp.profile = profile;
        f.tcp.sack = Some(sack);
        f.tcp.abc = Some(false);
        f
    }

    #[test]
    fn sack_recovers_three_losses_in_one_rtt_where_newreno_needs_three() {
        use crate::scenario::Profile;
        // Window of 20 (segments 0..19, in congestion avoidance), segments 5, 8 and 11 lost.
        // The ACKs of the first window reach the sender from t = 2D + 1 us on; the third
        // duplicate ACK (from segment 9) starts recovery.
        for (sack, rtts) in [(true, 1u64), (false, 3)] {
            let mut f = flow(Profile::Ns2, sack);
            f.tcp.profile = if sack { Profile::Linux } else { Profile::Ns2 };
            let mut p = Path::new(f, &[5, 8, 11], &[]);
            p.s.ssthresh = 20.0;
            let done = p.run(20 * 2 * D, 20).expect("all 20 segments acknowledged");
            let first_retx = p.retx[0].0;
            // SACK: the three holes are retransmitted in the first recovery RTT (each once it is
            // IsLost), so their ACKs arrive one RTT (+ the link's per-packet time) after the first
            // retransmission. NewReno: one hole per RTT, so three RTTs.
            let took = done - first_retx;
            assert!(
                took > (rtts * 2 * D) && took < (rtts * 2 * D + 30 * LINK),
                "sack {sack}: recovered in {} us after the first retransmission, want about {} RTT",
                took / 1_000_000,
                rtts
            );
            assert_eq!(p.s.stats.timeouts, 0, "sack {sack}: no RTO");
            let holes: Vec<u64> = p.retx.iter().map(|r| r.1).collect();
            assert_eq!(holes, [5, 8, 11], "sack {sack}: exactly the three lost segments are retransmitted");
            if sack {
                // All three retransmissions leave within the first RTT of recovery.
                assert!(p.retx[2].0 - first_retx < 2 * D, "{:?}", p.retx);
                assert_eq!(p.s.ca, CaState::Open, "recovery ended");
                // Linux halves the window on whole segments (tcp_reno_ssthresh): cwnd 20 + the 5
                // ACKs' 5/20 of congestion avoidance before the loss, 20 >> 1 = 10. (FlightSize /
                // 2, ns-2's and RFC 6675's, would be 11: 20 + the 2 new segments the first two
                // duplicate ACKs let out.)
                assert_eq!(p.s.ssthresh, 10.0, "ssthresh = max(cwnd >> 1, 2)");
            }
        }
    }

    #[test]
    fn sack_tolerates_reordering_below_dupthresh_and_handles_partial_acks() {
        use crate::scenario::Profile;
        // Segment 5 arrives 2.5 us late: after 6 and 7 (two SACKs above it, < DupThresh).
        let mut p = Path::new(flow(Profile::Linux, true), &[], &[(5, 2)]);
        p.late = vec![(5, 2)];
        p.run(10 * 2 * D, 200);
        assert_eq!((p.s.stats.retransmits, p.s.stats.fast_retransmits, p.s.stats.timeouts), (0, 0, 0));
        // Three SACKs above it (4 us late: after 6, 7, 8): a spurious fast retransmit, as RFC 6675
        // prescribes at DupThresh = 3.
        let mut p = Path::new(flow(Profile::Linux, true), &[], &[(5, 4)]);
        p.run(10 * 2 * D, 200);
        assert_eq!(p.s.stats.fast_retransmits, 1);
        // Partial ACKs: segments 5 and 15 lost. The retransmission of 5 is ACKed cumulatively up
        // to 15 (a partial ACK): recovery goes on (15 was already retransmitted once IsLost),
        // without a timeout, and ends when everything sent before it is acknowledged.
        let mut p = Path::new(flow(Profile::Linux, true), &[5, 15], &[]);
        p.s.ssthresh = 20.0;
        let done = p.run(10 * 2 * D, 20).unwrap();
        assert_eq!(p.s.stats.timeouts, 0);
        assert_eq!(p.retx.iter().map(|r| r.1).collect::<Vec<_>>(), [5, 15]);
        assert!(done - p.retx[0].0 < 2 * D + 30 * LINK, "one RTT");
    }

    #[test]
    fn linux_dctcp_counts_a_segment_with_the_ecn_echo_of_the_ack_that_delivered_it() {
        use crate::scenario::Profile;
        // Window of 20, segment 5's first transmission lost; segments 6..19 reach the receiver and
        // are SACKed by unmarked ACKs; only the retransmission of 5 is CE-marked, so the ACK that
        // fills the hole carries ECN-Echo and covers 15 segments, 14 of them SACKed already. Linux
        // counts one marked segment in that window (tcp_count_delivered: each segment once, with
        // the ECE of the ACK that delivered it); counting the cumulative advance made it 15. The
        // first alpha update after the hole is filled must differ from the unmarked run's by
        // floor((1 << 6) / n) / 1024 with n >= 20 segments delivered in the window: 1..3 / 1024
        // (15 marked would give >= 30 / 1024, since n <= 32: the window plus what it let out).
        let run = |mark: bool| {
            let mut f = spec(ProtocolSpec::dctcp(1.0 / 16.0, 1.0));
            f.tcp.profile = Profile::Linux;
            f.tcp.sack = Some(true);
            let mut p = Path::new(f, &[5], &[]);
            if mark {
                p.mark_retx = vec![5];
            }
            p.s.ssthresh = 20.0;
            p.run(12 * 2 * D, 6).expect("the hole is filled");
            p
        };
        let (plain, marked) = (run(false), run(true));
        let filled = |p: &Path| p.alphas.iter().position(|a| a.1 > 5).expect("snd_una passes 5");
        let (i, j) = (filled(&plain), filled(&marked));
        // The first change of alpha from the hole-filling ACK on, in each run.
        let next_change = |p: &Path, k: usize| {
            let before = p.alphas[k - 1].2;
            p.alphas[k..].iter().find(|a| a.2 != before).map(|a| a.2).expect("alpha is updated")
        };
        let diff = (next_change(&marked, j) - next_change(&plain, i)) * 1024.0;
        assert!((1.0..=3.0).contains(&diff.round()) && (diff - diff.round()).abs() < 1e-9, "{diff}");
    }

    #[test]
    fn rto_after_sack_recovery_keeps_sacked_marks() {
        use crate::scenario::Profile;
        // Segment 5 lost and its retransmission lost too: an RTO. Afterwards only 5 is sent again
        // (the SACKed 6..19 are not), and the flow recovers.
        let mut p = Path::new(flow(Profile::Linux, true), &[5], &[]);
        p.s.ssthresh = 20.0;
        // Lose the first retransmission as well: drop it via a second entry handled below.
        p.run(2 * D + 25 * LINK, u64::MAX);
        assert_eq!(p.retx.iter().map(|r| r.1).collect::<Vec<_>>(), [5]);
        // Take the retransmission out of the network (it is lost), then let the timer fire.
        let lost: Vec<_> =
            p.q.drain()
                .filter(|e| {
                    let (pk, to_rx) = p.pkts[(e.0).2 as usize];
                    !(to_rx && pk.seq == 5)
                })
                .collect();
        p.q.extend(lost);
        let mut out = Vec::new();
        let deadline = p.s.rto_deadline.unwrap();
        // Deliver what is still in flight before the deadline, then time out.
        while let Some(std::cmp::Reverse((t, _, i))) = p.q.pop() {
            if !p.deliver(t, i, &mut out) {
                out.clear(); // new data after this point is irrelevant here
            }
        }
        assert!(deadline.0 > 0);
        let before = p.s.stats.retransmits;
        p.s.on_timeout(p.s.rto_deadline.unwrap(), &mut out);
        assert_eq!(p.s.ca, CaState::Loss);
        assert_eq!(out.len(), 1, "cwnd 1: one segment");
        assert_eq!(out[0].seq, 5, "the lost segment, not the SACKed ones");
        assert_eq!(p.s.stats.retransmits, before + 1);
        assert_eq!(p.s.stats.timeouts, 1);
    }

    #[test]
    fn cwr_with_prr_reduces_over_one_rtt_without_growth() {
        use crate::scenario::EcnReaction;
        // DCTCP with alpha = 1 (cut to half), window 20 in congestion avoidance, `ecn_response =
        // "prr"` (CWR freeze implied). The first ACK carries ECN-Echo, the rest of the window not.
        let mut f = spec(ProtocolSpec::dctcp(1.0 / 16.0, 1.0));
        f.init_cwnd_pkt = 20.0;
        f.tcp.ecn_response = Some(EcnReaction::Prr);
        let mut s = Sender::new(0, 0, 1, &f, 1500, 40);
        s.ssthresh = 20.0;
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        assert_eq!(out.len(), 20);
        out.clear();
        let t = Time(100_000_000);
        s.on_ack(&ack(1, true, Time(0)), t, &mut out);
        assert_eq!(s.ca, CaState::Cwr);
        assert_eq!((s.ssthresh, s.stats.ecn_cuts), (10.0, 1));
        let high_seq = s.high_seq;
        assert_eq!(high_seq, 20);
        // Over the rest of the round trip (ACKs 2..=20, no marks): one segment per two ACKs, the
        // window never above its value before the cut, and never growing from one ACK to the next
        // except by PRR's sends.
        let mut sent = out.len();
        for a in 2..=20u64 {
            out.clear();
            s.on_ack(&ack(a, false, Time(0)), t, &mut out);
            sent += out.len();
            assert_eq!(s.ca, CaState::Cwr, "ACK {a} does not pass high_seq = 20");
            assert!(s.cwnd <= 20.0 - (a as f64) / 2.0 + 1.0, "ACK {a}: cwnd {}", s.cwnd);
        }
        assert_eq!(sent, 10, "PRR sent ssthresh = 10 segments for the 20 delivered");
        assert_eq!(s.snd_nxt - s.snd_una, 10, "pipe = ssthresh at the end of the round trip");
        // The first ACK beyond high_seq ends CWR: cwnd = ssthresh, and growth resumes.
        out.clear();
        s.on_ack(&ack(21, false, Time(0)), t, &mut out);
        assert_eq!(s.ca, CaState::Open);
        assert!((s.cwnd - (10.0 + 1.0 / 10.0)).abs() < 1e-12, "cwnd {}", s.cwnd);
    }

    #[test]
    fn cwr_freeze_with_the_immediate_cut_blocks_growth_for_one_rtt() {
        // ns-2's cut (at once, on the first ECE ACK), but with `cwr_freeze`: the unmarked ACKs of
        // the round trip after the cut do not open the window; ns-2 (no freeze) grows on them.
        for freeze in [true, false] {
            let mut f = spec(ProtocolSpec::dctcp(1.0 / 16.0, 1.0));
            f.init_cwnd_pkt = 20.0;
            f.tcp.cwr_freeze = Some(freeze);
            let mut s = Sender::new(0, 0, 1, &f, 1500, 40);
            s.ssthresh = 20.0;
            let mut out = Vec::new();
            s.start(Time(0), &mut out);
            let t = Time(100_000_000);
            s.on_ack(&ack(1, true, Time(0)), t, &mut out);
            assert_eq!(s.cwnd, 10.0);
            for a in 2..=20u64 {
                s.on_ack(&ack(a, false, Time(0)), t, &mut out);
            }
            if freeze {
                assert_eq!(s.cwnd, 10.0, "no growth before an ACK passes the cut's window end (20)");
                s.on_ack(&ack(21, false, Time(0)), t, &mut out);
                assert!(s.cwnd > 10.0, "growth resumes after one RTT");
            } else {
                assert!(s.cwnd > 10.0, "ns-2 grows on unmarked ACKs at once");
            }
        }
    }

    /// Retransmissions grouped by round trip (a gap of more than one one-way delay starts a new
    /// round): how many segments each round sent again.
    fn retransmissions_per_round(retx: &[(u64, u64)]) -> Vec<usize> {
        let mut rounds: Vec<usize> = Vec::new();
        let mut last = None;
        for &(t, _) in retx {
            if last.is_none_or(|l| t - l > D) {
                rounds.push(0);
            }
            *rounds.last_mut().expect("pushed") += 1;
            last = Some(t);
        }
        rounds
    }

    #[test]
    fn after_a_timeout_the_window_grows_in_slow_start_with_cwr_freeze() {
        use crate::scenario::Profile;
        // The whole first window (20 segments) is lost: one timeout, then the window restarts at
        // 1 segment and, in slow start without ABC (+1 per ACK), the rounds resend 1, 2, 4, 8
        // and the last 5 of them (Linux: tcp_enter_loss, then tcp_slow_start in Loss; cwr_freeze
        // is about ECN reductions). A freeze over the lost window resent one segment per round
        // trip for ~20 RTTs. ssthresh = 10 (half the window of 20) keeps the doubling below it.
        for (profile, sack, freeze) in [
            (Profile::Linux, true, true),
            (Profile::Linux, false, true),
            (Profile::Ns2, false, true),
            (Profile::Ns2, false, false),
        ] {
            let mut f = flow(profile, sack);
            f.tcp.cwr_freeze = Some(freeze);
            let lost: Vec<u64> = (0..20).collect();
            let mut p = Path::new(f, &lost, &[]);
            p.s.ssthresh = 20.0;
            p.run(10_000_000_000 + 12 * 2 * D, 20).expect("the lost window is recovered");
            let what = format!("{profile:?}, sack {sack}, cwr_freeze {freeze}");
            assert_eq!(p.s.stats.timeouts, 1, "{what}");
            assert_eq!(p.s.ssthresh.floor(), 10.0, "{what}");
            assert_eq!(retransmissions_per_round(&p.retx), [1, 2, 4, 8, 5], "{what}: {:?}", p.retx);
        }
    }

    #[test]
    fn loss_ssthresh_is_half_the_window_in_linux_and_half_the_flight_in_ns2() {
        use crate::scenario::Profile;
        // 20 segments out, the window raised to 31 by hand (a window above the flight, as after
        // growth on a NIC-limited sender): Linux halves the window (tcp_reno_ssthresh,
        // dctcp_react_to_loss: 31 >> 1 = 15), ns-2 / RFC 5681 the flight (20 / 2 = 10). A second,
        // backed-off timeout of the same episode keeps Linux's 15 (tcp_enter_loss sets ssthresh
        // only once per episode: it would halve the 1-segment window to the floor of 2), and the
        // ns2 profile's 10 too (RFC 5681 §3.1: a segment the timer already resent holds
        // ssthresh). After an ACK of new data, the next timeout halves again: Linux's window is 2
        // (1 + 1 in slow start), so the floor 2; ns-2's flight is 19, so 9.5.
        for (profile, sack, want) in [
            (Profile::Linux, true, [15.0, 15.0, 2.0]),
            (Profile::Linux, false, [15.0, 15.0, 2.0]),
            (Profile::Ns2, false, [10.0, 10.0, 9.5]),
        ] {
            for proto in [ProtocolSpec::newreno(false), ProtocolSpec::dctcp(1.0 / 16.0, 1.0)] {
                let mut f = spec(proto);
                f.init_cwnd_pkt = 20.0;
                f.tcp.profile = profile;
                f.tcp.sack = Some(sack);
                f.tcp.abc = Some(false);
                let mut s = Sender::new(0, 0, 1, &f, 1500, 40);
                let mut out = Vec::new();
                s.start(Time(0), &mut out);
                assert_eq!(out.len(), 20);
                s.cwnd = 31.0;
                let what = format!("{profile:?}, sack {sack}, {:?}", s.cc.alpha());
                s.on_timeout(Time(10_000_000_000), &mut out);
                assert_eq!((s.ssthresh, s.cwnd), (want[0], 1.0), "{what}: first timeout");
                s.on_timeout(Time(30_000_000_000), &mut out);
                assert_eq!(s.ssthresh, want[1], "{what}: backed-off timeout");
                s.on_ack(&ack(1, false, Time(0)), Time(31_000_000_000), &mut out);
                assert_eq!(s.snd_una, 1);
                s.on_timeout(Time(80_000_000_000), &mut out);
                assert_eq!(s.ssthresh, want[2], "{what}: a timeout after progress");
            }
        }
    }

    #[test]
    fn linux_dctcp_halves_again_when_a_loss_ends_its_cwr_and_reno_does_not() {
        use crate::scenario::{EcnReaction, Profile};
        // Window 20: the first ACK carries ECN-Echo and CWR sets ssthresh (DCTCP with alpha = 1/2:
        // 20 - (20 x 512 >> 11) = 15; NewReno-ECN: 20 / 2 = 10). PRR has brought the window to 16
        // (set by hand) when the next ACK SACKs segments 2..=4: segment 1 is lost (DupThresh 3)
        // and Recovery starts inside the CWR. Linux's DCTCP (dctcp_state) sets ssthresh =
        // max(cwnd >> 1, 2) = 8 again, and PRR aims at it; Reno keeps the CWR's 10.
        for (proto, cwr, want) in
            [(ProtocolSpec::dctcp(1.0 / 16.0, 0.5), 15.0, 8.0), (ProtocolSpec::newreno(true), 10.0, 10.0)]
        {
            let mut f = spec(proto);
            f.init_cwnd_pkt = 20.0;
            f.tcp.profile = Profile::Linux;
            f.tcp.sack = Some(true);
            f.tcp.ecn_response = Some(EcnReaction::Prr);
            let mut s = Sender::new(0, 0, 1, &f, 1500, 40);
            s.ssthresh = 20.0;
            let mut out = Vec::new();
            s.start(Time(0), &mut out);
            let t = Time(100_000_000);
            s.on_ack_with_sack(&ack(1, true, Time(0)), &[], t, &mut out);
            assert_eq!((s.ca, s.ssthresh), (CaState::Cwr, cwr));
            s.cwnd = 16.0;
            s.on_ack_with_sack(&ack(1, false, Time(0)), &[(2, 5)], t, &mut out);
            assert_eq!(s.ca, CaState::Recovery);
            assert_eq!((s.ssthresh, s.prr.ssthresh), (want, want as u64), "alpha {}", s.cc.alpha());
        }
    }

    #[test]
    fn with_sack_a_duplicate_ack_feeds_the_rto_estimator_only_with_newly_sacked_data() {
        // Linux's sack_rtt: a duplicate ACK SACKing a segment for the first time is an RTT sample
        // of it; the next one, repeating the same block (a receiver sends its blocks on every ACK
        // while it holds out-of-order data), is not.
        let mut f = spec(ProtocolSpec::newreno(false));
        f.tcp.profile = Profile::Linux;
        f.tcp.sack = Some(true);
        let mut s = Sender::new(0, 0, 1, &f, 1500, 40);
        let mut out = Vec::new();
        s.start(Time(0), &mut out);
        let us = |x: u64| Time(x * 1_000_000);
        s.on_ack_with_sack(&ack(1, false, us(0)), &[], us(100), &mut out); // 100 us
        assert_eq!(s.srtt, Some(us(100)));
        s.on_ack_with_sack(&ack(1, false, us(100)), &[(2, 3)], us(400), &mut out); // segment 2: 300 us
        let after_new = s.srtt;
        assert_eq!(after_new, Some(us(125)), "(7 x 100 + 300) / 8 us");
        s.on_ack_with_sack(&ack(1, false, us(100)), &[(2, 3)], us(900), &mut out); // the same block
        assert_eq!(s.srtt, after_new, "a repeated block fed the estimator");
    }
}
