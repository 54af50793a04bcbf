//! RED with ECN (Floyd & Jacobson 1993), following ns-2.35 `queue/red.cc` (protocols.md §5):
//! EWMA average with idle-time correction, min_th / max_th / max_p, count-based spacing
//! (`wait`, ns-2's default, or classic `p_b/(1 - count p_b)`), optional gentle mode. Marks
//! ECN-capable packets when `ecn` is on; drops the others. Two differences from ns-2: above max_th
//! (forced) an ECN-capable packet is marked, not dropped, as the coexistence paper's RED marks
//! "each arriving packet with probability one" there; and no `mark_p` limit on marking. As in
//! ns-2, the average and the count see every arrival, the ones the full buffer then drops too
//! (the port decides with RED before its buffer limit, and a tail drop restarts the count).
//! As in ns-2 the count is raised before p_a is computed, so with `wait = false` the gap between
//! drops is uniform on {1, ..., 1/p_b - 1} (mean ~ 1/(2 p_b)), not on Floyd & Jacobson's
//! {1, ..., 1/p_b}; `wait = true` spaces them on {1/p_b, ..., 2/p_b - 1} (a review measured the
//! drop fractions of both against these to 4 digits).

use rand::Rng as _;
use serde::{Deserialize, Serialize};

use super::{Discipline, QueueKind, QueueView, Verdict};
use crate::error::{invalid, Result};
use crate::params::{Param, Unit};
use crate::rng::Rng;
use crate::scenario::{amount_bytes, check_unit_interval, Amount};
use crate::units::{Rate, Time};

/// RED in scenarios: `kind = "red"`, thresholds on the average queue in packets (`min_th`,
/// `max_th`, `max_p` required); the others default to the classic w_q = 0.002 (protocols.md §5),
/// not gentle, ECN on, ns-2's `wait_` spacing.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Thresholds on the average queue, packets.
    #[serde(rename = "min_th_pkt")]
    pub min_th: f64,
    #[serde(rename = "max_th_pkt")]
    pub max_th: f64,
    /// Marking probability at max_th (coexistence paper, eq. 2).
    pub max_p: f64,
    /// EWMA weight w_q of the average queue.
    #[serde(default = "default_w_q")]
    pub w_q: f64,
    /// Ramp p_b from max_p to 1 between max_th and 2 max_th instead of forcing above max_th.
    #[serde(default)]
    pub gentle: bool,
    /// Mark ECN-capable packets instead of dropping them.
    #[serde(default = "yes")]
    pub ecn: bool,
    /// ns-2 `wait_`: space drops by count (p_a = 0 while count*p_b < 1). false = classic RED.
    #[serde(default = "yes")]
    pub wait: bool,
}

/// The classic w_q (protocols.md §5); CHOKe's default too.
pub(super) fn default_w_q() -> f64 {
    0.002
}
pub(super) fn yes() -> bool {
    true
}

/// RED's parameters as scenarios name them (CHOKe's too, which keeps RED's state).
pub const PARAMS: [Param; 7] = [
    Param { name: "min_th", field: "min_th_pkt", unit: Unit::Packets },
    Param { name: "max_th", field: "max_th_pkt", unit: Unit::Packets },
    Param { name: "max_p", field: "max_p", unit: Unit::Probability },
    Param { name: "w_q", field: "w_q", unit: Unit::Gain },
    Param { name: "gentle", field: "gentle", unit: Unit::Flag },
    Param { name: "ecn", field: "ecn", unit: Unit::Flag },
    Param { name: "wait", field: "wait", unit: Unit::Flag },
];
/// The parameters RED needs a scenario to give.
pub const REQUIRED: [&str; 3] = ["min_th", "max_th", "max_p"];

impl Params {
    /// Floyd & Jacobson's example thresholds: min_th = 5, max_th = 15 packets, max_p = 0.1.
    pub fn example() -> Self {
        Params { min_th: 5.0, max_th: 15.0, max_p: 0.1, w_q: default_w_q(), gentle: false, ecn: true, wait: true }
    }

    /// 0 <= min_th < max_th <= buffer (packets); 0 < max_p, w_q <= 1.
    pub fn check(&self, field: &dyn Fn(&str) -> String, capacity: Amount, packet_bytes: u32) -> Result<()> {
        let Params { min_th, max_th, .. } = *self;
        let (lo, hi) = (packets_shown(min_th), packets_shown(max_th));
        if !(min_th.is_finite() && min_th >= 0.0) {
            return Err(invalid(field("min_th"), format!("{lo} is out of range; allowed >= 0 packets")));
        }
        if !(max_th.is_finite() && max_th > min_th) {
            return Err(invalid(field("max_th"), format!("{hi} must be larger than min_th = {lo}")));
        }
        let cap_bytes = amount_bytes(capacity, packet_bytes);
        if max_th * packet_bytes as f64 > cap_bytes as f64 {
            let cap = packets_shown(cap_bytes as f64 / packet_bytes.max(1) as f64);
            return Err(invalid(
                field("max_th"),
                format!(
                    "{hi} is larger than the buffer {capacity} ({cap} of {packet_bytes} B); allowed max_th <= buffer"
                ),
            ));
        }
        check_unit_interval(&field("max_p"), self.max_p, true)?;
        check_unit_interval(&field("w_q"), self.w_q, true)
    }
}

/// A queue length in packets for errors: up to four decimals ("133.3333 packets", "5 packets"),
/// powers of ten beyond 10^9 (a threshold given in bytes arrives as a fraction of packets).
fn packets_shown(x: f64) -> String {
    if x.is_finite() && x.abs() < 1e9 {
        let s = format!("{x:.4}");
        format!("{} packets", s.trim_end_matches('0').trim_end_matches('.'))
    } else {
        format!("{x:e} packets")
    }
}

impl QueueKind for Params {
    const NAME: &'static str = "red";
    const PARAMS: &'static [Param] = &PARAMS;
    const REQUIRED: &'static [&'static str] = &REQUIRED;
    type Discipline = Red;

    fn example() -> Self {
        Params::example()
    }
    fn discipline(&self, packet_bytes: u32, rate: Rate) -> Red {
        Red::new(*self, packet_bytes, rate)
    }
    fn check(&self, field: &dyn Fn(&str) -> String, capacity: Amount, packet_bytes: u32) -> Result<()> {
        Params::check(self, field, capacity, packet_bytes)
    }
    fn marks_ect(&self) -> bool {
        self.ecn
    }
}

pub struct Red {
    p: Params,
    /// Packets per second the link drains (ns-2 `ptc`), for the idle-time correction.
    ptc: f64,
    /// Average queue, packets.
    pub avg: f64,
    count: u64,
    old: bool,
}

impl Red {
    pub fn new(p: Params, mean_packet_bytes: u32, rate: Rate) -> Self {
        Red { p, ptc: rate.bps() as f64 / (8.0 * mean_packet_bytes as f64), avg: 0.0, count: 0, old: false }
    }

    /// The discipline's parameters.
    pub fn params(&self) -> &Params {
        &self.p
    }

    /// Average update on arrival: avg <- avg (1-w)^m after m idle packet times, then
    /// avg <- (1-w) avg + w q.
    pub fn update_avg(&mut self, q: QueueView, now: Time) {
        let w = self.p.w_q;
        if let Some(idle) = q.idle_since {
            let m = (self.ptc * (now - idle).secs_f64()).floor();
            if m > 0.0 {
                self.avg *= (1.0 - w).powf(m);
            }
        }
        self.avg = (1.0 - w) * self.avg + w * q.packets as f64;
    }

    /// Count packets since the last drop or mark from zero again (after a tail drop).
    pub fn restart_count(&mut self) {
        self.count = 0;
    }

    /// Arrivals counted since the last drop or mark (ns-2 `count`).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Base probability p_b from the average queue (gentle ramp above max_th when enabled).
    fn p_b(&self) -> f64 {
        let Params { min_th, max_th, max_p, gentle, .. } = self.p;
        if self.avg < max_th {
            max_p * (self.avg - min_th) / (max_th - min_th)
        } else if gentle {
            (max_p + (1.0 - max_p) * (self.avg - max_th) / max_th).min(1.0)
        } else {
            1.0
        }
    }

    pub fn admit(&mut self, q: QueueView, ect: bool, now: Time, rng: &mut Rng) -> Verdict {
        self.update_avg(q, now);
        self.decide(q, ect, rng)
    }

    /// RED's decision on an arrival once the average is up to date (steps 2-6 of protocols.md §5):
    /// the count-spaced probabilistic mark/drop between min_th and max_th, forced above max_th.
    /// CHOKe (`choke.rs`) calls this for arrivals that do not match the packets it drew.
    pub fn decide(&mut self, q: QueueView, ect: bool, rng: &mut Rng) -> Verdict {
        self.count += 1;
        if self.avg < self.p.min_th || q.packets <= 1 {
            self.old = false;
            return Verdict::Enqueue;
        }
        let forced = if self.p.gentle { self.avg >= 2.0 * self.p.max_th } else { self.avg >= self.p.max_th };
        let hit = if forced {
            true
        } else if !self.old {
            // First arrival above min_th: start counting, no drop.
            self.old = true;
            self.count = 1;
            false
        } else {
            let pb = self.p_b();
            let c = self.count as f64 * pb;
            let pa = if self.p.wait {
                if c < 1.0 {
                    0.0
                } else if c < 2.0 {
                    pb / (2.0 - c)
                } else {
                    1.0
                }
            } else if c < 1.0 {
                pb / (1.0 - c)
            } else {
                1.0
            };
            rng.random::<f64>() < pa
        };
        if !hit {
            return Verdict::Enqueue;
        }
        self.count = 0;
        if self.p.ecn && ect {
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }
}

/// RED sees every arrival (its average and count, ns-2 `red.cc`), and a tail drop restarts its count.
impl Discipline for Red {
    #[inline]
    fn admit(&mut self, q: QueueView, ect: bool, now: Time, rng: &mut Rng) -> Verdict {
        Red::admit(self, q, ect, now, rng)
    }

    fn keeps_average(&self) -> bool {
        true
    }

    fn on_tail_drop(&mut self) {
        self.restart_count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    fn params() -> Params {
        Params::example()
    }
    fn view(p: u64) -> QueueView {
        QueueView { packets: p, bytes: p * 1500, idle_since: None }
    }

    #[test]
    fn average_converges_to_constant_queue() {
        let mut red = Red::new(params(), 1500, Rate(1_000_000_000));
        let mut rng = stream(1, Stream::Port, 0);
        for _ in 0..10_000 {
            red.admit(view(3), true, Time(0), &mut rng);
        }
        // EWMA of a constant 3: 3 (1 - (1-w)^n) with n = 10^4, w = 0.002
        let expect = 3.0 * (1.0 - (1.0f64 - 0.002).powi(10_000));
        assert!((red.avg - expect).abs() < 1e-9, "avg {} expect {}", red.avg, expect);
    }

    #[test]
    fn idle_time_decays_average() {
        let mut red = Red::new(params(), 1500, Rate(1_000_000_000));
        red.avg = 10.0;
        let mut rng = stream(1, Stream::Port, 0);
        // 1 Gbps, 1500 B: 83333.3 packets/s; 12 us idle = 1 packet time -> m = 1.
        let q = QueueView { packets: 0, bytes: 0, idle_since: Some(Time(0)) };
        red.admit(q, true, Time(120_000_000), &mut rng); // 120 us = 10 packet times
        let expect = 10.0 * (1.0f64 - 0.002).powi(10) * (1.0 - 0.002);
        assert!((red.avg - expect).abs() < 1e-9);
    }

    #[test]
    fn marking_fraction_matches_count_spacing() {
        // Hold avg at 10 (p_b = 0.05): with wait=true, drops are spaced ~ uniformly in
        // [1/p_b, 2/p_b] arrivals, mean 1.5/p_b = 30 arrivals -> fraction ~ 1/30.
        let mut p = params();
        p.w_q = 1.0; // avg = instantaneous queue
        let mut red = Red::new(p, 1500, Rate(1_000_000_000));
        let mut rng = stream(7, Stream::Port, 0);
        let n = 200_000;
        let marks = (0..n).filter(|_| red.admit(view(10), true, Time(0), &mut rng) == Verdict::Mark).count();
        let frac = marks as f64 / n as f64;
        assert!((frac - 1.0 / 30.0).abs() < 0.002, "fraction {frac}");
        // Not ECN-capable: dropped instead.
        let mut red2 = Red::new(p, 1500, Rate(1_000_000_000));
        let drops = (0..n).filter(|_| red2.admit(view(10), false, Time(0), &mut rng) == Verdict::Drop).count();
        assert!(drops > 0);
        // Above max_th: every packet is marked.
        assert_eq!(red.admit(view(20), true, Time(0), &mut rng), Verdict::Mark);
    }
}
