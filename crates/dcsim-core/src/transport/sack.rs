//! Selective acknowledgments: the receiver's SACK blocks (RFC 2018) and the sender's scoreboard
//! for SACK-based loss recovery (RFC 6675), used when a flow has `sack = true` (the Linux
//! profile's default).
//!
//! Choices, with their sources:
//! * **Blocks** (RFC 2018 §4, Linux `tcp_sack_new_ofo_skb`): up to 3 blocks per ACK (Linux's
//!   limit with the timestamp option), the first one holding the segment that triggered the ACK,
//!   then the most recently reported others; every block is the current (merged) range of
//!   out-of-order data. The option's bytes are added to the ACK's size (2 + 8 n, padded to 4).
//! * **Carrying blocks**: an ACK keeps its blocks in a per-flow log at the receiver, keyed by an id
//!   in the packet's `aux` field, instead of enlarging every packet; the sender takes them when the
//!   ACK arrives. A flow's ACKs follow one FIFO path, so ids arrive in order; entries of dropped ACKs
//!   are discarded when a later id arrives. An ACK without out-of-order data carries none (aux 0).
//! * **IsLost** (RFC 6675 §4, DupThresh = 3): an unSACKed segment is lost when at least 3 SACKed
//!   segments lie above it (with full-size segments, "more than (DupThresh - 1) SMSS bytes" and
//!   "DupThresh discontiguous blocks" both imply it). All unSACKed segments below the third-highest
//!   SACKed one are lost, so IsLost is one comparison with [`Scoreboard::lost_below`].
//! * **Entering recovery**: when IsLost(HighACK + 1). Every duplicate ACK here SACKs one new
//!   segment, so this is RFC 6675's "DupAcks >= DupThresh" too. Linux >= 4.18 detects losses with
//!   RACK-TLP by default (time-based); we model the DupThresh rule (Linux with tcp_recovery = 0).
//! * **pipe** (RFC 6675 §4 SetPipe) and **NextSeg** rules 1-3 (§4); rule 4 (rescue retransmission)
//!   is not modelled. SetPipe's "retransmitted" is kept exactly (the retransmissions still out, as
//!   Linux's `retrans_out`) rather than as "below HighRxt".
//! * **Lost retransmissions** (Linux's SACK-based detection, `tcp_mark_lost_retrans`; RACK-TLP
//!   has the same effect for this case): a retransmission is lost again when a segment first sent
//!   after it is SACKed; it is then retransmitted again before anything else. RFC 6675 alone would
//!   wait for the RTO.
//! * **RTO after SACK recovery** (RFC 6675 §5.1): the SACKed marks are kept (our receiver never
//!   reneges; Linux `tcp_enter_loss` keeps them too) and every unSACKed segment sent before the
//!   timeout is marked lost and retransmitted in order, skipping SACKed ones; HighRxt restarts at
//!   HighACK.

use std::collections::VecDeque;

/// SACK's duplicate threshold (RFC 6675 DupThresh).
pub const DUP_THRESH: u64 = 3;
/// Blocks per ACK (Linux with timestamps, RFC 2018 §3).
pub const MAX_BLOCKS: usize = 3;

/// A set of segment numbers as sorted, disjoint, non-adjacent half-open ranges [start, end).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    r: Vec<(u64, u64)>,
    count: u64,
}

impl RangeSet {
    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }

    /// Segments in the set.
    pub fn len(&self) -> u64 {
        self.count
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.r
    }

    /// One past the highest segment, if any.
    pub fn end(&self) -> Option<u64> {
        self.r.last().map(|&(_, e)| e)
    }

    /// Add [a, b); returns how many segments were new.
    pub fn insert_range(&mut self, a: u64, b: u64) -> u64 {
        if a >= b {
            return 0;
        }
        let i = self.r.partition_point(|&(_, e)| e < a);
        let (mut lo, mut hi, mut covered, mut j) = (a, b, 0, i);
        while j < self.r.len() && self.r[j].0 <= b {
            let (s, e) = self.r[j];
            covered += e.min(b).saturating_sub(s.max(a));
            lo = lo.min(s);
            hi = hi.max(e);
            j += 1;
        }
        self.r.splice(i..j, [(lo, hi)]);
        let added = (b - a) - covered;
        self.count += added;
        added
    }

    pub fn insert(&mut self, s: u64) -> bool {
        self.insert_range(s, s + 1) == 1
    }

    /// Remove every segment below `x`; returns how many.
    pub fn remove_below(&mut self, x: u64) -> u64 {
        let k = self.r.partition_point(|&(_, e)| e <= x);
        let mut removed: u64 = self.r[..k].iter().map(|&(s, e)| e - s).sum();
        self.r.drain(..k);
        if let Some(f) = self.r.first_mut() {
            if f.0 < x {
                removed += x - f.0;
                f.0 = x;
            }
        }
        self.count -= removed;
        removed
    }

    /// The range holding `s`.
    pub fn range_of(&self, s: u64) -> Option<(u64, u64)> {
        let i = self.r.partition_point(|&(_, e)| e <= s);
        self.r.get(i).copied().filter(|&(a, _)| a <= s)
    }

    pub fn contains(&self, s: u64) -> bool {
        self.range_of(s).is_some()
    }

    /// Segments of the set in [a, b).
    pub fn count_in(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            return 0;
        }
        let i = self.r.partition_point(|&(_, e)| e <= a);
        self.r[i..].iter().take_while(|&&(s, _)| s < b).map(|&(s, e)| e.min(b) - s.max(a)).sum()
    }

    /// The first segment >= `x` not in the set.
    pub fn next_absent(&self, x: u64) -> u64 {
        self.range_of(x).map_or(x, |(_, e)| e)
    }
}

/// The SACK blocks of one ACK, most recent first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    n: u8,
    b: [(u64, u64); MAX_BLOCKS],
}

impl SackBlocks {
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.b[..self.n as usize]
    }

    fn push(&mut self, blk: (u64, u64)) {
        self.b[self.n as usize] = blk;
        self.n += 1;
    }

    /// Bytes of the SACK option on the wire: kind, length and 8 bytes a block, padded to 4 with NOPs.
    pub fn option_bytes(&self) -> u32 {
        if self.n == 0 {
            0
        } else {
            (2 + 8 * self.n as u32).div_ceil(4) * 4
        }
    }
}

/// The blocks of ACKs on their way, by the id in their `aux` field, in the order they were sent.
/// The receiver keeps one per flow; a partitioned run's other worlds keep one per flow for the
/// ACKs that crossed into them (`sim/partition.rs`).
#[derive(Debug, Default)]
pub struct SackLog {
    log: VecDeque<(u32, SackBlocks)>,
}

impl SackLog {
    /// Log the blocks of the ACK with `id` (ids come in sending order).
    pub fn push(&mut self, id: u32, blocks: SackBlocks) {
        self.log.push_back((id, blocks));
    }

    /// The blocks of the ACK with `id` (as it arrives); older entries (dropped ACKs) are
    /// discarded.
    pub fn take(&mut self, id: u32) -> SackBlocks {
        if id == 0 {
            return SackBlocks::default();
        }
        while let Some(&(i, b)) = self.log.front() {
            if (i.wrapping_sub(id) as i32) < 0 {
                self.log.pop_front();
            } else if i == id {
                self.log.pop_front();
                return b;
            } else {
                break; // a late (reordered) ACK: its entry is gone
            }
        }
        SackBlocks::default()
    }

    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
    }
}

/// The receiver's side: which blocks to report, and the log the sender reads them from.
#[derive(Debug, Default)]
pub struct SackReceiver {
    /// A segment of each recently reported block, most recent first (RFC 2018's order).
    recent: Vec<u64>,
    log: SackLog,
    last_id: u32,
}

impl SackReceiver {
    /// Blocks for an ACK sent after `seq` arrived (in order or not), given the out-of-order data
    /// `ooo` (all above the cumulative ACK).
    pub fn blocks(&mut self, seq: u64, ooo: &RangeSet) -> SackBlocks {
        let mut out = SackBlocks::default();
        if ooo.is_empty() {
            self.recent.clear();
            return out;
        }
        if ooo.contains(seq) {
            self.recent.insert(0, seq);
        }
        let mut kept = Vec::with_capacity(MAX_BLOCKS + 1);
        for &s in &self.recent {
            if let Some(blk) = ooo.range_of(s) {
                if !out.as_slice().contains(&blk) {
                    kept.push(s);
                    if (out.n as usize) < MAX_BLOCKS {
                        out.push(blk);
                    }
                }
            }
            if kept.len() > MAX_BLOCKS {
                break;
            }
        }
        self.recent = kept;
        // Blocks never reported yet (e.g. after the recent list was trimmed): fill from the top.
        for &blk in ooo.ranges().iter().rev() {
            if out.n as usize == MAX_BLOCKS {
                break;
            }
            if !out.as_slice().contains(&blk) {
                out.push(blk);
            }
        }
        out
    }

    /// Log `blocks` for an ACK; returns the id to put in its `aux` (0: no blocks).
    pub fn log(&mut self, blocks: SackBlocks) -> u32 {
        if blocks.n == 0 {
            return 0;
        }
        self.last_id = self.last_id.wrapping_add(1).max(1);
        self.log.push(self.last_id, blocks);
        self.last_id
    }

    /// The blocks of the ACK with `id` (as it arrives at the sender); older entries (dropped ACKs)
    /// are discarded.
    pub fn take(&mut self, id: u32) -> SackBlocks {
        self.log.take(id)
    }
}

/// What [`Scoreboard::next_seg`] chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    Retransmit(u64),
    New,
}

/// The sender's scoreboard (RFC 6675 §3-4).
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed segments above the cumulative ACK.
    pub sacked: RangeSet,
    /// Unsacked segments below this are lost (IsLost).
    lost_below: u64,
    /// After an RTO: every unsacked segment below this is lost.
    rto_lost_below: u64,
    /// One past the highest retransmitted segment (RFC 6675 HighRxt).
    pub high_rxt: u64,
    /// Retransmissions still out: (segment, first new segment sent after it), in sending order.
    retx: VecDeque<(u64, u64)>,
    /// Retransmissions found lost, to send again first.
    relost: RangeSet,
}

impl Scoreboard {
    /// Apply an ACK with cumulative ack `una` and `blocks`; returns the change in SACKed segments
    /// (RFC 6937's change_in(SACKd), negative when the cumulative ACK covers SACKed data).
    pub fn update(&mut self, una: u64, blocks: &[(u64, u64)]) -> i64 {
        let before = self.sacked.len() as i64;
        self.sacked.remove_below(una);
        for &(a, b) in blocks {
            if b > una {
                self.sacked.insert_range(a.max(una), b);
            }
        }
        self.high_rxt = self.high_rxt.max(una);
        self.lost_below = self.dupthresh_boundary().max(self.rto_lost_below);
        self.relost.remove_below(una);
        if !self.retx.is_empty() {
            let top = self.sacked.end().unwrap_or(0);
            let sacked = &self.sacked;
            self.retx.retain(|&(s, _)| s >= una && !sacked.contains(s));
            while let Some(&(s, after)) = self.retx.front() {
                if top <= after {
                    break;
                }
                self.retx.pop_front();
                self.relost.insert(s);
            }
        }
        self.sacked.len() as i64 - before
    }

    /// A segment was retransmitted; `snd_nxt` is the next new segment (sent after it).
    pub fn retransmitted(&mut self, seq: u64, snd_nxt: u64) {
        self.high_rxt = self.high_rxt.max(seq + 1);
        self.relost.remove_below(seq + 1); // the lowest relost one is the one resent
        self.retx.push_back((seq, snd_nxt));
    }

    /// The DupThresh-th highest SACKed segment (0 if fewer are SACKed).
    fn dupthresh_boundary(&self) -> u64 {
        let mut need = DUP_THRESH;
        for &(s, e) in self.sacked.ranges().iter().rev() {
            if e - s >= need {
                return e - need;
            }
            need -= e - s;
        }
        0
    }

    /// IsLost(seq) for an unsacked segment.
    pub fn is_lost(&self, seq: u64) -> bool {
        seq < self.lost_below && !self.sacked.contains(seq)
    }

    /// Unsacked segments below this are lost.
    pub fn lost_below(&self) -> u64 {
        self.lost_below
    }

    /// An RTO: every unsacked segment below `high_data` is lost, retransmissions start again at `una`.
    pub fn on_timeout(&mut self, una: u64, high_data: u64) {
        self.rto_lost_below = high_data;
        self.lost_below = self.lost_below.max(high_data);
        self.high_rxt = una;
        self.retx.clear();
        self.relost = RangeSet::default();
    }

    /// Loss recovery (or the RTO's loss state) ended.
    pub fn end_recovery(&mut self) {
        self.rto_lost_below = 0;
        self.lost_below = self.dupthresh_boundary();
    }

    /// RFC 6675 §4 SetPipe: for every segment in [una, high_data) not SACKed, one if it is not
    /// lost (a) and one more if it was retransmitted and that retransmission is still out (b):
    /// a lost segment's retransmission counts once, a rule-3 retransmission of a segment not
    /// lost counts twice (the original and the copy; Linux's `packets_out - left_out +
    /// retrans_out` alike).
    pub fn pipe(&self, una: u64, high_data: u64) -> u64 {
        let out = high_data - una;
        if self.sacked.is_empty() && self.lost_below <= una && self.retx.is_empty() {
            return out;
        }
        let lb = self.lost_below.clamp(una, high_data);
        let lost = (lb - una) - self.sacked.count_in(una, lb);
        // `update` keeps only retransmissions in [una, ..) not SACKed and not found lost.
        out - self.sacked.len() - lost + self.retx.len() as u64
    }

    /// RFC 6675 NextSeg, rules 1-3: a lost segment above HighRxt, else new data, else an unsacked
    /// segment above HighRxt below the highest SACKed one.
    pub fn next_seg(&self, una: u64, can_send_new: bool) -> Option<NextSeg> {
        if let Some(&(r, _)) = self.relost.ranges().first() {
            if r >= una && !self.sacked.contains(r) {
                return Some(NextSeg::Retransmit(r));
            }
        }
        let s = self.sacked.next_absent(self.high_rxt.max(una));
        if s < self.lost_below {
            return Some(NextSeg::Retransmit(s));
        }
        if can_send_new {
            return Some(NextSeg::New);
        }
        match self.sacked.end() {
            Some(top) if s < top => Some(NextSeg::Retransmit(s)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_set_merges_counts_and_trims() {
        let mut r = RangeSet::default();
        assert_eq!(r.insert_range(5, 8), 3);
        assert_eq!(r.insert_range(10, 12), 2);
        assert_eq!(r.insert_range(7, 11), 2, "8, 9 new; 7 and 10 were there");
        assert_eq!(r.ranges(), &[(5, 12)]);
        assert!(r.insert(12));
        assert!(!r.insert(6));
        assert_eq!((r.len(), r.ranges()), (8, &[(5, 13)][..]));
        r.insert_range(20, 22);
        assert_eq!(r.count_in(0, 100), 10);
        assert_eq!(r.count_in(6, 21), 8);
        assert_eq!(r.remove_below(7), 2);
        assert_eq!((r.len(), r.ranges()), (8, &[(7, 13), (20, 22)][..]));
        assert_eq!(r.next_absent(8), 13);
        assert_eq!(r.next_absent(14), 14);
        assert_eq!(r.remove_below(21), 7);
        assert_eq!(r.ranges(), &[(21, 22)]);
    }

    #[test]
    fn receiver_reports_the_newest_block_first_and_at_most_three() {
        let mut ooo = RangeSet::default();
        let mut rx = SackReceiver::default();
        // Cumulative ACK stays at 0 (segment 0 lost); 2, 4, 6, 8 arrive (holes at 1, 3, 5, 7).
        let mut last = SackBlocks::default();
        for s in [2, 4, 6, 8] {
            ooo.insert(s);
            last = rx.blocks(s, &ooo);
            assert_eq!(last.as_slice()[0], (s, s + 1), "first block holds the segment just received");
        }
        assert_eq!(last.as_slice(), &[(8, 9), (6, 7), (4, 5)], "most recent first, 3 blocks");
        assert_eq!(last.option_bytes(), 28);
        // Segment 3 arrives: it joins 4, and that block comes first.
        ooo.insert(3);
        assert_eq!(rx.blocks(3, &ooo).as_slice(), &[(2, 5), (8, 9), (6, 7)]);
        // The log hands blocks to the sender by id; a dropped ACK's entry is skipped.
        let a = rx.log(last);
        let blk = rx.blocks(3, &ooo);
        let b = rx.log(blk);
        assert_eq!(rx.take(b).as_slice()[0], (2, 5));
        assert_eq!(rx.take(a), SackBlocks::default(), "entry already discarded");
        assert_eq!(rx.take(0), SackBlocks::default());
    }

    #[test]
    fn islost_needs_three_sacked_segments_above() {
        let mut sb = Scoreboard::default();
        // 0..10 sent, 0 and 1 missing; 2 SACKed: nothing lost yet (reordering tolerated).
        sb.update(0, &[(2, 3)]);
        assert!(!sb.is_lost(0) && !sb.is_lost(1));
        assert_eq!(sb.pipe(0, 10), 9);
        sb.update(0, &[(2, 4)]);
        assert!(!sb.is_lost(0));
        sb.update(0, &[(2, 5)]);
        assert!(sb.is_lost(0) && sb.is_lost(1) && !sb.is_lost(5));
        // pipe: 10 sent - 3 SACKed - 2 lost.
        assert_eq!(sb.pipe(0, 10), 5);
        assert_eq!(sb.next_seg(0, true), Some(NextSeg::Retransmit(0)));
        sb.retransmitted(0, 10);
        assert_eq!(sb.pipe(0, 10), 6, "the retransmission is in the pipe");
        assert_eq!(sb.next_seg(0, true), Some(NextSeg::Retransmit(1)));
        sb.retransmitted(1, 10);
        assert_eq!(sb.next_seg(0, true), Some(NextSeg::New));
        // Rule 3: no new data, an unsacked segment below the highest SACKed one (none here: 2..5
        // are SACKed, 5.. above the top).
        assert_eq!(sb.next_seg(0, false), None);
        sb.update(0, &[(7, 8)]);
        assert_eq!(sb.next_seg(0, false), Some(NextSeg::Retransmit(5)));
        // SetPipe by hand: 10 sent - 4 SACKed (2, 3, 4, 7) - 2 lost (0, 1: three SACKed above)
        // + 2 retransmissions of lost ones = 6; the rule-3 copy of 5 (not lost: only 7 is SACKed
        // above it) is in the network beside its original, RFC 6675 (a) and (b): 7.
        assert_eq!(sb.pipe(0, 10), 6);
        sb.retransmitted(5, 10);
        assert_eq!(sb.pipe(0, 10), 7, "a rule-3 retransmission counts on top of its original");
        // A partial ACK (cumulative 1): the SACKed count is unchanged, the lost one fewer.
        assert_eq!(sb.update(1, &[(2, 5)]), 0);
        assert!(sb.is_lost(1) && !sb.is_lost(5));
    }

    #[test]
    fn a_lost_retransmission_is_found_when_later_data_is_sacked() {
        let mut sb = Scoreboard::default();
        // 0..10 sent; 0 lost; 1..4 SACKed -> 0 is lost, retransmitted while snd_nxt = 10.
        sb.update(0, &[(1, 4)]);
        sb.retransmitted(0, 10);
        assert_eq!(sb.pipe(0, 10), 10 - 3 - 1 + 1);
        // New segments 10, 11 go out; 10 is SACKed: sent after the retransmission of 0, which
        // has not arrived, so it was lost too. pipe drops by one and 0 is next again.
        sb.update(0, &[(10, 11), (1, 4)]);
        assert_eq!(sb.pipe(0, 12), 12 - 4 - 1, "12 sent, 4 SACKed, 0 lost; its retransmission no longer counts");
        assert_eq!(sb.next_seg(0, true), Some(NextSeg::Retransmit(0)));
        sb.retransmitted(0, 12);
        assert_ne!(sb.next_seg(0, true), Some(NextSeg::Retransmit(0)));
    }
}
