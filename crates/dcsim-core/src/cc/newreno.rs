//! TCP NewReno's congestion response to ECN (RFC 3168): halve the window, at most once per
//! window. Its loss response (RFC 5681/6582) lives in `transport/tcp.rs`, shared with DCTCP.

pub struct NewReno {
    /// ECN-capable (RFC 3168); without it, a marking queue drops this flow's packets.
    pub ecn: bool,
}

impl NewReno {
    #[inline]
    pub fn ecn_cut(&self, cwnd: f64) -> f64 {
        cwnd / 2.0
    }
}
