//! DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257; analysis paper §2.1).
//!
//! alpha <- (1 - g) alpha + g F once per window of data, F the fraction of acknowledged
//! segments that carried ECN-Echo (eq. 3); on ECN-Echo, W <- W (1 - alpha/2) (eq. 4), at most
//! once per window (enforced by the transport).

pub struct Dctcp {
    /// EWMA gain g.
    pub g: f64,
    /// Estimated fraction of marked packets.
    pub alpha: f64,
    /// End of the current observation window (a segment number); None before the first ACK.
    window_end: Option<u64>,
    acked: u64,
    marked: u64,
}

impl Dctcp {
    pub fn new(g: f64, alpha_init: f64) -> Self {
        Dctcp { g, alpha: alpha_init, window_end: None, acked: 0, marked: 0 }
    }

    /// Count acknowledged / marked segments; once the ACK passes the window end, update alpha (eq. 3).
    #[inline]
    pub fn on_ack(&mut self, acked: u64, ece: bool, ack_no: u64, snd_nxt: u64) {
        let end = *self.window_end.get_or_insert(snd_nxt);
        self.acked += acked;
        if ece {
            self.marked += acked;
        }
        if ack_no > end && self.acked > 0 {
            let f = self.marked as f64 / self.acked as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.window_end = Some(snd_nxt);
            self.acked = 0;
            self.marked = 0;
        }
    }

    /// eq. (4): W <- W (1 - alpha/2).
    #[inline]
    pub fn ecn_cut(&self, cwnd: f64) -> f64 {
        cwnd * (1.0 - self.alpha / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn alpha_follows_eq3() {
        let mut d = Dctcp::new(1.0 / 16.0, 0.0);
        // Window 0..10: first ACK fixes the window end at snd_nxt = 10.
        for ack in 1..=10u64 {
            d.on_ack(1, ack % 2 == 0, ack, 10);
        }
        // ack 11 passes the end: F = 5 marked of 11 acked... the 11th ACK is counted in this window.
        d.on_ack(1, false, 11, 20);
        let f = 5.0 / 11.0;
        assert!((d.alpha - f / 16.0).abs() < 1e-12);
        assert!((d.ecn_cut(10.0) - 10.0 * (1.0 - d.alpha / 2.0)).abs() < 1e-12);
    }
}
