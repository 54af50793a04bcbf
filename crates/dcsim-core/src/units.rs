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

impl std::ops::Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl std::ops::AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0;
    }
}
impl std::ops::Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}

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
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn tx_time_is_exact() {
        // 1500 B at 10 Gbps = 1.2 us exactly.
        assert_eq!(Rate(10_000_000_000).tx_time(1500), Time(1_200_000));
        // 1500 B at 1 Gbps = 12 us.
        assert_eq!(Rate(1_000_000_000).tx_time(1500), Time(12_000_000));
        // Rounds up: 1 byte at 3 bit/s = 8/3 s.
        assert_eq!(Rate(3).tx_time(1).0, 2_666_666_666_667);
    }
}
