//! Proportional Rate Reduction (RFC 6937): how many segments to send on each ACK while the window
//! comes down to ssthresh, in loss recovery (SACK) and in ECN's CWR state (Linux
//! `tcp_cwnd_reduction`).
//!
//! ```text
//! on every ACK:  prr_delivered += DeliveredData
//!   pipe >  ssthresh:  sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
//!   pipe <= ssthresh:  limit = MAX(prr_delivered - prr_out, DeliveredData) + 1   (PRR-SSRB)
//!                      limit = prr_delivered - prr_out                           (PRR-CRB)
//!                      sndcnt = MIN(ssthresh - pipe, limit)
//! on every transmission: prr_out += 1
//! ```
//!
//! Choices, with their sources:
//! * RecoverFS is the window when the reduction started (Linux's `prior_cwnd`); RFC 6937 writes
//!   FlightSize, the same value for a window-limited sender, and its examples use it (cwnd =
//!   FlightSize = 20).
//! * The slow-start reduction bound (SSRB) by default, RFC 6937's recommendation and Linux's.
//! * While nothing was sent yet, at least one segment goes out (Linux: "force a fast retransmit
//!   upon entering fast recovery"), so the reduction never starts with a silent ACK.
//! * Counts are whole segments, as Linux's.

/// The reduction bound used once pipe has fallen to ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Slow-start reduction bound (PRR-SSRB).
    SlowStart,
    /// Conservative reduction bound (PRR-CRB).
    Conservative,
}

#[derive(Clone, Debug)]
pub struct Prr {
    pub ssthresh: u64,
    recover_fs: u64,
    delivered: u64,
    out: u64,
    bound: Bound,
}

impl Prr {
    /// A reduction from window `prior_cwnd` towards `ssthresh`, both in segments.
    pub fn start(ssthresh: u64, prior_cwnd: u64, bound: Bound) -> Self {
        Prr { ssthresh: ssthresh.max(1), recover_fs: prior_cwnd.max(1), delivered: 0, out: 0, bound }
    }

    /// An ACK that delivered `delivered` segments (newly cumulatively ACKed + newly SACKed) and
    /// left `pipe` segments in the network: the segments to send now.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64) -> u64 {
        self.delivered += delivered;
        let sndcnt = if pipe > self.ssthresh {
            (self.delivered * self.ssthresh).div_ceil(self.recover_fs).saturating_sub(self.out)
        } else {
            let banked = self.delivered.saturating_sub(self.out);
            let limit = match self.bound {
                Bound::SlowStart => banked.max(delivered) + 1,
                Bound::Conservative => banked,
            };
            (self.ssthresh - pipe).min(limit)
        };
        if self.out == 0 {
            sndcnt.max(1)
        } else {
            sndcnt
        }
    }

    /// A segment was sent (new or retransmitted) during the reduction.
    #[inline]
    pub fn sent(&mut self) {
        self.out += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::sack::{NextSeg, Scoreboard};

    /// RFC 6937 §3.1's setting: cwnd = FlightSize = pipe = 20, ssthresh 10, limited transmit
    /// (RFC 3042) sends a new segment on each of the first two duplicate ACKs, the third starts
    /// recovery. `lost` segments 0.. are lost; the ACKs of segments `lost..20` arrive in order,
    /// each SACKing its segment. Returns, per ACK, what was sent ("N" new, "R" retransmission,
    /// "2R", ...) and the pipe after the ACK's own update (before sending), as in the RFC's rows.
    fn rfc6937_example(lost: u64, bound: Bound) -> Vec<(u64, String, u64)> {
        let mut sb = Scoreboard::default();
        let (mut high_data, mut cwnd) = (20u64, 20u64);
        let mut prr: Option<Prr> = None;
        let mut rows = Vec::new();
        for seg in lost..20 {
            let before = sb.sacked.len();
            sb.update(0, &[(lost, seg + 1)]);
            let delivered = sb.sacked.len() - before;
            let pipe = sb.pipe(0, high_data);
            if prr.is_none() && sb.is_lost(0) {
                prr = Some(Prr::start(10, cwnd, bound));
            }
            let mut sent = Vec::new();
            let budget = match &mut prr {
                // In recovery: PRR decides; cwnd = pipe + sndcnt.
                Some(p) => p.on_ack(delivered, pipe),
                // Limited transmit / pipe-based sending: up to cwnd.
                None => cwnd.saturating_sub(pipe).min(1),
            };
            let mut p_now = pipe;
            for _ in 0..budget {
                let next = if prr.is_some() { sb.next_seg(0, true) } else { Some(NextSeg::New) };
                match next {
                    Some(NextSeg::Retransmit(s)) => {
                        sb.retransmitted(s, high_data);
                        sent.push("R");
                    }
                    Some(NextSeg::New) => {
                        high_data += 1;
                        sent.push("N");
                    }
                    None => break,
                }
                if let Some(p) = &mut prr {
                    p.sent();
                }
                p_now += 1;
            }
            if prr.is_none() {
                cwnd = 20;
            }
            let label = match sent.len() {
                0 => String::new(),
                1 => sent[0].to_string(),
                n => format!("{n}{}", sent[0]),
            };
            rows.push((seg, label, pipe));
            let _ = p_now;
        }
        rows
    }

    #[test]
    fn rfc6937_single_loss() {
        // RFC 6937 §3.1, PRR, segment 0 lost:
        //   ack#   X  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19
        //   sent:     N  N  R     N     N     N     N     N     N        N  N
        let rows = rfc6937_example(1, Bound::SlowStart);
        let sent: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
        let pipe: Vec<u64> = rows.iter().map(|r| r.2).collect();
        assert_eq!(&sent[..16], &["N", "N", "R", "", "N", "", "N", "", "N", "", "N", "", "N", "", "N", ""]);
        // The RFC's pipe row: 19 19 18 on ACKs 1-3 is ours before that ACK's transmission; from
        // ACK 4 on it is the value after it (ours + what the ACK sent): 18 18 17 17 ... 13 13 12.
        assert_eq!(&pipe[..3], &[19, 19, 18]);
        let after: Vec<u64> = pipe.iter().zip(&sent).map(|(p, s)| p + !s.is_empty() as u64).collect();
        assert_eq!(&after[3..16], &[18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12]);
        // The tail of the RFC's table is not consistent with its own pseudo-code: it keeps pipe at
        // 12 on ACK 17 although segment 17 is SACKed and nothing is sent, then sends on 18 and 19.
        // The pseudo-code (and this implementation): ACK 17 has prr_delivered = 15, prr_out = 7,
        // pipe = 11 > ssthresh, so sndcnt = CEIL(15 * 10 / 20) - 7 = 1; ACK 18: pipe 11,
        // CEIL(16 * 10 / 20) - 8 = 0; ACK 19: pipe 10 = ssthresh, MIN(10 - 10, limit) = 0.
        assert_eq!(&sent[16..], &["N", "", ""]);
        // What PRR promises holds: the window ends exactly at ssthresh.
        assert_eq!(*after.last().unwrap(), 10, "pipe ends at ssthresh");
    }

    #[test]
    fn rfc6937_burst_loss_of_15() {
        // RFC 6937 §3.1, segments 0-14 lost, ACKs of 15-19 return:
        //   PRR-SSRB  pipe: 19 19  4  5  6   sent: N  N 2R 2R 2R
        //   PRR-CRB   pipe: 19 19  4  4  4   sent: N  N  R  R  R
        let ssrb = rfc6937_example(15, Bound::SlowStart);
        assert_eq!(ssrb.iter().map(|r| r.2).collect::<Vec<_>>(), [19, 19, 4, 5, 6]);
        assert_eq!(ssrb.iter().map(|r| r.1.as_str()).collect::<Vec<_>>(), ["N", "N", "2R", "2R", "2R"]);
        let crb = rfc6937_example(15, Bound::Conservative);
        assert_eq!(crb.iter().map(|r| r.2).collect::<Vec<_>>(), [19, 19, 4, 4, 4]);
        assert_eq!(crb.iter().map(|r| r.1.as_str()).collect::<Vec<_>>(), ["N", "N", "R", "R", "R"]);
    }

    #[test]
    fn ecn_cwr_reduction_spreads_over_one_rtt() {
        // CWR (no loss): window 20, ssthresh 10, one segment delivered per ACK, pipe = window in
        // flight. PRR sends one segment for every second ACK and ends with pipe = ssthresh.
        let mut p = Prr::start(10, 20, Bound::SlowStart);
        let mut pipe = 20u64;
        let mut sent = 0;
        for _ in 0..20 {
            pipe -= 1;
            let n = p.on_ack(1, pipe);
            for _ in 0..n {
                p.sent();
            }
            pipe += n;
            sent += n;
        }
        assert_eq!((sent, pipe), (10, 10));
    }
}
