//! Units inside the engine: integer picoseconds for time, bit/s for rates, bytes for sizes.
//!
//! No floats for time: serialisation and propagation delays are exact integers, so event
//! order never depends on rounding.

use serde::{Deserialize, Serialize};

/// Simulated time or duration in integer picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub const PS_PER_S: u64 = 1_000_000_000_000;

    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * Self::PS_PER_S as f64).round() as u64)
    }
    pub fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    pub fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / Self::PS_PER_S as f64
    }
    pub fn ps(self) -> u64 {
        self.0
    }
}

/// Addition saturates at [`Time::MAX`] ("never"): every input time is range-checked where it
/// enters (at most [`MAX_TIME_PS`]), so sums of a few stay exact, and a sum that would not fit
/// (e.g. the departure of a packet queued behind years of traffic on a very slow link) lies
/// beyond the end of any run instead of wrapping around.
impl std::ops::Add for Time {
    type Output = Time;
    #[inline]
    fn add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
}
impl std::ops::AddAssign for Time {
    #[inline]
    fn add_assign(&mut self, o: Time) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl std::ops::Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}

/// A duration in ps for messages, with the largest unit that keeps it >= 1: "8.6 us", "1 ns".
pub fn fmt_ps(ps: u128) -> String {
    let x = ps as f64;
    for (unit, scale) in [("s", 1e12), ("ms", 1e9), ("us", 1e6), ("ns", 1e3)] {
        if x >= scale {
            // Up to 4 decimals, without trailing zeros ("4.2 ms", not "4.2000 ms").
            let v = format!("{:.4}", x / scale);
            let v = v.trim_end_matches('0').trim_end_matches('.');
            return format!("{v} {unit}");
        }
    }
    format!("{ps} ps")
}

/// Largest time any scenario field may hold: 10^6 s (11.6 days) in ps. u64 picoseconds reach
/// 1.8 x 10^7 s, so a handful of such times add up without overflow.
pub const MAX_TIME_PS: u64 = 1_000_000 * Time::PS_PER_S;

/// Slowest and fastest link rates a scenario may give, bit/s (1 Kbit/s .. 10 Tbit/s).
pub const MIN_RATE_BPS: u64 = 1_000;
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;

/// Link rate in bit/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Rate(pub u64);

impl Rate {
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Exact serialisation time of `bytes` at this rate, rounded up to the next picosecond.
    pub fn tx_time(self, bytes: u32) -> Time {
        let bits = bytes as u128 * 8 * Time::PS_PER_S as u128;
        let r = self.0 as u128;
        Time(bits.div_ceil(r) as u64)
    }

    /// Serialisation time of `bytes` that follows back-to-back on the previous packet, whose
    /// exact end lay `carry`/rate ps after its whole-picosecond end (`carry` < rate). Returns
    /// (whole ps, new carry): the whole-ps end times of a busy period are the exact ends rounded
    /// down, so the link's busy time and the bits it sent agree to within 1 ps per busy period
    /// at any rate (rounding every packet up instead drifts by up to 1 ps per packet, 0.1 % at
    /// 100 Gbps). 64-bit arithmetic suffices: 65 535 B x 8 x 10^12 + 10^13 < 2^64.
    #[inline]
    pub fn tx_time_carry(self, bytes: u32, carry: u64) -> (Time, u64) {
        let num = bytes as u64 * 8 * Time::PS_PER_S + carry;
        (Time(num / self.0), num % self.0)
    }
}

/// A number for a message: as written when that is short, else in exponent form (`1e300`, not
/// the 301 digits `{}` prints).
pub fn short_num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e7).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// `x` in the largest unit of `units` ((factor, name), largest first) in which it is at least 1,
/// as short as [`short_num`] makes it: 3.601e15 ps is "3601s" ([`show_ps`]).
fn show(x: f64, units: &[(f64, &str)]) -> String {
    let (f, name) = units.iter().copied().find(|&(f, _)| x.abs() >= f).unwrap_or(*units.last().unwrap());
    format!("{}{name}", short_num(x / f))
}

/// A time of `ps` picoseconds for a message, in the scenario's units ("10us", "3601s").
pub fn show_ps(ps: u64) -> String {
    show(ps as f64, &[(1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns"), (1.0, "ps")])
}

/// A rate of `bps` bit/s for a message, in the scenario's units ("100Mbps", "1Kbps").
pub fn show_bps(bps: u64) -> String {
    show(bps as f64, &[(1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "Kbps"), (1.0, "bps")])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_messages_have_no_trailing_zeros() {
        assert_eq!(fmt_ps(4_200_000_000), "4.2 ms"); // had been "4.2000 ms"
        assert_eq!(fmt_ps(10_000_000), "10 us");
        assert_eq!(fmt_ps(11_178_600), "11.1786 us");
        assert_eq!(fmt_ps(1_000_050), "1.0001 us"); // rounded to 4 decimals, as before
        assert_eq!(fmt_ps(2_000_000_000_000), "2 s");
        assert_eq!(fmt_ps(999), "999 ps");
    }

    #[test]
    fn values_are_shown_in_the_scenarios_units() {
        assert_eq!(show_ps(3_601_000_000_000_000), "3601s");
        assert_eq!(show_ps(1), "1ps");
        assert_eq!(show_ps(10_000_000), "10us");
        assert_eq!(show_bps(100_000_000), "100Mbps");
        assert_eq!(show_bps(1_000), "1Kbps");
        assert_eq!(show_bps(12_500_000_000), "12.5Gbps");
    }
    #[test]
    fn tx_time_is_exact() {
        // 1500 B at 10 Gbps = 1.2 us exactly.
        assert_eq!(Rate(10_000_000_000).tx_time(1500), Time(1_200_000));
        // 1500 B at 1 Gbps = 12 us.
        assert_eq!(Rate(1_000_000_000).tx_time(1500), Time(12_000_000));
        // Rounds up: 1 byte at 3 bit/s = 8/3 s.
        assert_eq!(Rate(3).tx_time(1).0, 2_666_666_666_667);
    }

    #[test]
    fn carried_serialisation_matches_exact_busy_time() {
        // 1500 B at 3 Gbps = 4 us exactly... 1501 B is 4002.666.. ns: three back-to-back packets
        // end at floor(3 x 4002666.67 ps) = 12 008 000 ps exactly, not 3 x ceil.
        let r = Rate(3_000_000_000);
        let (mut t, mut c) = (0u64, 0u64);
        for _ in 0..3 {
            let (d, nc) = r.tx_time_carry(1501, c);
            t += d.0;
            c = nc;
        }
        assert_eq!(t, 12_008_000);
        assert_eq!(c, 0);
        // Time addition saturates instead of wrapping.
        assert_eq!(Time(u64::MAX - 1) + Time(5), Time::MAX);
    }
}
