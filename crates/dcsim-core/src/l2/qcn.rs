//! QCN, Quantized Congestion Notification (IEEE 802.1Qau), as collected in protocols.md §1
//! (checked against the public ns-3 QCN of S1, chengwx1992/PCN-simulation `qbb-net-device.cc`).
//!
//! CP (one per switch egress queue), on each arriving frame:
//! `time_to_mark -= frame`; when it goes below 0: Qoff = q - Qeq, Qδ = q - q_old,
//! Fb = -(Qoff + w Qδ) clipped to [-Qeq (2w+1), 0], qntz = ⌊64 |Fb| / (Qeq (2w+1))⌋ capped at 63
//! (S1's linear 6-bit quantization); a CNM goes to the sampled frame's source iff qntz > 0;
//! q_old = q (only at a sample); time_to_mark reloads from the sampling table indexed by qntz >> 3,
//! times U(0.85, 1.15).
//!
//! RP (one rate limiter per source): current rate CR, target rate TR, byte counter BC, timer T,
//! stages `byte_stage` / `time_stage`.
//! * CNM: TR = CR if an increase cycle happened since the last CNM (S1: byte_stage != 0);
//!   CR = max(MinRate, CR (1 - Gd qntz)); both stages = 0; BC = BC_LIMIT; T re-armed with jitter.
//! * each transmitted frame: BC -= frame; below 0: byte_stage += 1, BC reloads to BC_LIMIT
//!   (BC_LIMIT/2 once byte_stage >= FR_TH) times the jitter, then self-increase.
//! * timer expiry: time_stage += 1, self-increase, re-arm T (T/2 once time_stage >= FR_TH) with
//!   jitter.
//! * self-increase: HAI (Ri = R_HAI (min(stages) - FR_TH)) if both stages > FR_TH, AI (Ri = R_AI)
//!   if one is, else fast recovery (Ri = 0); TR = TR/8 if this is the first cycle (a stage == 1)
//!   and TR > 10 CR, else TR += Ri; CR = min((CR + TR)/2, line rate).
//!
//! Rate-limiter release: when CR reaches the line rate the limiter is released (no timer, stages
//! 0, TR = CR = line rate) until the next CNM. protocols.md (S5) also asks for an empty limiter
//! queue; for what the RP computes the two are equivalent: at line rate CR is capped, and the next
//! CNM sets TR = CR = line rate and resets stages, BC and T either way. Releasing only saves the
//! timer events of sources that no CP throttles.
//!
//! Multiple CPs: one rate limiter per source reacts to CNMs from any CP (the standard's RP; S1
//! keeps one rate per CP and sends at the minimum, a variant we do not implement).

use serde::{Deserialize, Serialize};

use super::{
    check_pos_u64, foreign_feedback, jitter, payload, CongestionPoint, CpId, Feedback, Param, ReactionPoint, Scheme,
    Signal, Unit,
};
use crate::error::{invalid, Result};
use crate::rng::Rng;
use crate::units::{Rate, Time};

fn default_qeq_bytes() -> u64 {
    33_000 // protocols.md §1: "for 10G, about 33 KB" [P]; S3 34 KB, S1 40 x 1020 B
}
fn default_w() -> f64 {
    2.0 // protocols.md §1 [V S1, S2, S3]
}
fn default_gd() -> f64 {
    1.0 / 128.0 // [V S1]: one cut is at most 63/128
}
fn default_sample_table_bytes() -> [u32; 8] {
    [150_000, 75_000, 50_000, 37_500, 30_000, 25_000, 21_500, 18_500] // [V S1 mark_table]
}
fn default_bc_limit_bytes() -> u64 {
    150_000 // [V S1 ByteCounter]
}
fn default_timer_ps() -> u64 {
    // 10 ms: the 802.1Qau literature uses 10-15 ms (protocols.md §1 [P]); S1's 1.5 ms is DCQCN
    // heritage. The DSM paper configures QCN per the 802.1Qau pseudo-code v2.3 (its ref. [22]).
    10_000_000_000
}
fn default_fr_th() -> u32 {
    5 // [V S1, S2]
}
fn default_r_ai_bps() -> u64 {
    5_000_000 // [V S1]
}
fn default_r_hai_bps() -> u64 {
    50_000_000 // [V S1]
}
fn default_min_rate_bps() -> u64 {
    100_000_000 // [V S1, S6]
}

/// QCN parameters (protocols.md §1 "10 Gbps defaults").
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Equilibrium queue Qeq, bytes.
    #[serde(default = "default_qeq_bytes")]
    pub qeq_bytes: u64,
    /// Weight w of the queue change in Fb = -(Qoff + w Qδ).
    #[serde(default = "default_w")]
    pub w: f64,
    /// Decrease gain Gd: CR <- CR (1 - Gd qntz).
    #[serde(default = "default_gd")]
    pub gd: f64,
    /// Bytes between samples, indexed by qntz >> 3.
    #[serde(default = "default_sample_table_bytes")]
    pub sample_table_bytes: [u32; 8],
    /// RP byte counter BC_LIMIT, bytes.
    #[serde(default = "default_bc_limit_bytes")]
    pub bc_limit_bytes: u64,
    /// RP timer period T, ps.
    #[serde(default = "default_timer_ps")]
    pub timer_ps: u64,
    /// Fast-recovery threshold FR_TH (cycles).
    #[serde(default = "default_fr_th")]
    pub fr_th: u32,
    /// Active-increase step R_AI, bit/s.
    #[serde(default = "default_r_ai_bps")]
    pub r_ai_bps: u64,
    /// Hyper-active-increase step R_HAI, bit/s.
    #[serde(default = "default_r_hai_bps")]
    pub r_hai_bps: u64,
    /// MinRate, bit/s: a cut never goes below it.
    #[serde(default = "default_min_rate_bps")]
    pub min_rate_bps: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            qeq_bytes: default_qeq_bytes(),
            w: default_w(),
            gd: default_gd(),
            sample_table_bytes: default_sample_table_bytes(),
            bc_limit_bytes: default_bc_limit_bytes(),
            timer_ps: default_timer_ps(),
            fr_th: default_fr_th(),
            r_ai_bps: default_r_ai_bps(),
            r_hai_bps: default_r_hai_bps(),
            min_rate_bps: default_min_rate_bps(),
        }
    }
}

/// Largest sensible byte counter / Qeq (1 TB): keeps all arithmetic far from overflow.
const MAX_BYTES: u64 = 1 << 40;

impl Params {
    pub fn validate(&self, prefix: &str) -> Result<()> {
        check_pos_u64(prefix, "qeq_bytes", self.qeq_bytes, "Qeq")?;
        if self.qeq_bytes > MAX_BYTES {
            return Err(invalid(
                format!("{prefix}.qeq_bytes"),
                format!("Qeq = {} B is too large; allowed 0 < qeq_bytes <= {MAX_BYTES}", self.qeq_bytes),
            ));
        }
        if !(self.w.is_finite() && (0.0..=1e6).contains(&self.w)) {
            return Err(invalid(
                format!("{prefix}.w"),
                format!("w = {} is out of range; allowed 0 <= w <= 1e6", super::num(self.w)),
            ));
        }
        // 63 Gd <= 1 keeps CR (1 - Gd qntz) >= 0.
        if !(self.gd.is_finite() && self.gd > 0.0 && 63.0 * self.gd <= 1.0) {
            return Err(invalid(
                format!("{prefix}.gd"),
                format!("Gd = {} is out of range; allowed 0 < gd <= 1/63", super::num(self.gd)),
            ));
        }
        for (i, &b) in self.sample_table_bytes.iter().enumerate() {
            if b == 0 {
                return Err(invalid(format!("{prefix}.sample_table_bytes[{i}]"), "bytes between samples must be > 0"));
            }
        }
        if !(2..=MAX_BYTES).contains(&self.bc_limit_bytes) {
            return Err(invalid(
                format!("{prefix}.bc_limit_bytes"),
                format!("BC_LIMIT = {}B is out of range; allowed 2B .. {MAX_BYTES}B", self.bc_limit_bytes),
            ));
        }
        if !(2..=Time::PS_PER_S * 3600).contains(&self.timer_ps) {
            return Err(invalid(
                format!("{prefix}.timer_ps"),
                format!("timer T = {} is out of range; allowed 2ps .. 3600s", crate::units::show_ps(self.timer_ps)),
            ));
        }
        if self.fr_th == 0 {
            return Err(invalid(format!("{prefix}.fr_th"), "FR_TH must be >= 1 cycle, got 0"));
        }
        check_pos_u64(prefix, "r_ai_bps", self.r_ai_bps, "R_AI")?;
        check_pos_u64(prefix, "r_hai_bps", self.r_hai_bps, "R_HAI")?;
        check_pos_u64(prefix, "min_rate_bps", self.min_rate_bps, "MinRate")
    }
}

impl Scheme for Params {
    const NAME: &'static str = "qcn";
    const PARAMS: &'static [Param] = &[
        Param { name: "qeq", field: "qeq_bytes", unit: Unit::Bytes },
        Param { name: "w", field: "w", unit: Unit::Weight },
        Param { name: "gd", field: "gd", unit: Unit::Number },
        Param { name: "bc_limit", field: "bc_limit_bytes", unit: Unit::Bytes },
        Param { name: "timer", field: "timer_ps", unit: Unit::Ps },
        Param { name: "fr_th", field: "fr_th", unit: Unit::Count },
        Param { name: "r_ai", field: "r_ai_bps", unit: Unit::Bps },
        Param { name: "r_hai", field: "r_hai_bps", unit: Unit::Bps },
        Param { name: "min_rate", field: "min_rate_bps", unit: Unit::Bps },
    ];
    type Cp = Cp;
    type Rp = Rp;

    fn check(&self, prefix: &str) -> Result<()> {
        self.validate(prefix)
    }
    fn min_rate_bps(&self) -> u64 {
        self.min_rate_bps
    }
    fn target_queue(&self) -> (&'static str, u64) {
        ("qeq", self.qeq_bytes)
    }
    fn cp(&self, cpid: CpId, _link_rate: Rate) -> Cp {
        Cp::new(self, cpid)
    }
    fn rp(&self, line_rate: Rate, initial_rate: Rate) -> Rp {
        Rp::new(self, line_rate, initial_rate)
    }
    /// A CNM carries only the 6-bit quantized Fb the RP uses.
    #[inline]
    fn encode(signal: &Signal) -> u64 {
        payload(signal)
    }
    #[inline]
    fn decode(payload: u64) -> Signal {
        Signal::Qcn { qntz: payload as u8, q_off_bytes: 0, q_delta_bytes: 0 }
    }
}

impl CongestionPoint for Cp {
    #[inline]
    fn on_arrival(&mut self, _now: Time, q_bytes: u64, frame_bytes: u32, rng: &mut Rng) -> Option<Feedback> {
        Cp::on_arrival(self, q_bytes, frame_bytes, rng)
    }
    fn samples_taken(&self) -> u64 {
        self.samples
    }
    fn cpid(&self) -> CpId {
        self.cpid
    }
}

impl ReactionPoint for Rp {
    #[inline]
    fn rate_bps(&self) -> f64 {
        self.cr_bps
    }
    #[inline]
    fn on_feedback(&mut self, now: Time, fb: &Feedback, rng: &mut Rng) -> Result<()> {
        match fb.signal {
            Signal::Qcn { qntz, .. } => {
                self.on_cnm(now, qntz, rng);
                Ok(())
            }
            _ => Err(foreign_feedback(fb, "qcn")),
        }
    }
    #[inline]
    fn on_tx(&mut self, now: Time, frame_bytes: u32, rng: &mut Rng) {
        Rp::on_tx(self, now, frame_bytes, rng)
    }
    #[inline]
    fn next_timer(&self) -> Option<Time> {
        self.timer
    }
    #[inline]
    fn on_timer(&mut self, now: Time, rng: &mut Rng) -> bool {
        Rp::on_timer(self, now, rng)
    }
}

// ----------------------------------------------------------------------------------- CP

/// QCN congestion point of one egress queue.
#[derive(Clone, Debug)]
pub struct Cp {
    pub cpid: CpId,
    qeq: i64,
    w: f64,
    table: [u32; 8],
    /// Bytes left until the next sample.
    time_to_mark: i64,
    /// Queue length at the previous sample, bytes.
    qlen_old: u64,
    /// Samples taken so far (feedback sent or not).
    pub samples: u64,
}

impl Cp {
    pub fn new(p: &Params, cpid: CpId) -> Cp {
        // S1 starts the counter at table[0] without jitter.
        Cp {
            cpid,
            qeq: p.qeq_bytes.min(MAX_BYTES) as i64,
            w: p.w,
            table: p.sample_table_bytes,
            time_to_mark: p.sample_table_bytes[0] as i64,
            qlen_old: 0,
            samples: 0,
        }
    }

    /// Quantize a (clipped, non-positive) Fb to 6 bits ([`quantize`]).
    #[inline]
    pub fn quantize(&self, fb: f64) -> u8 {
        quantize(self.qeq as f64, self.w, fb)
    }

    /// Arrival of a frame of `frame_bytes`; `q_bytes` the queue including it.
    pub fn on_arrival(&mut self, q_bytes: u64, frame_bytes: u32, rng: &mut Rng) -> Option<Feedback> {
        self.time_to_mark -= frame_bytes as i64;
        if self.time_to_mark >= 0 {
            return None;
        }
        self.samples += 1;
        let q = q_bytes.min(MAX_BYTES) as i64;
        let q_off = q - self.qeq;
        let q_delta = q - self.qlen_old as i64;
        let fb_min = -(self.qeq as f64) * (2.0 * self.w + 1.0);
        let fb = (-(q_off as f64 + self.w * q_delta as f64)).clamp(fb_min, 0.0);
        let qntz = self.quantize(fb);
        self.qlen_old = q as u64;
        self.time_to_mark = (self.table[(qntz >> 3) as usize] as f64 * jitter(rng)) as i64;
        (qntz > 0).then_some(Feedback {
            cpid: self.cpid,
            signal: Signal::Qcn { qntz, q_off_bytes: q_off, q_delta_bytes: q_delta },
        })
    }
}

// ----------------------------------------------------------------------------------- RP

/// Which increase the last self-increase applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// No CNM since the limiter was (re)released: sending at line rate.
    Released,
    FastRecovery,
    ActiveIncrease,
    HyperActiveIncrease,
}

/// QCN reaction point (rate limiter) of one source.
#[derive(Clone, Debug)]
pub struct Rp {
    gd: f64,
    bc_limit: i64,
    timer_ps: u64,
    fr_th: u32,
    r_ai: f64,
    r_hai: f64,
    min_rate: f64,
    line: f64,
    /// Current rate CR, bit/s.
    pub cr_bps: f64,
    /// Target rate TR, bit/s.
    pub tr_bps: f64,
    /// Byte counter BC, bytes left in the current cycle.
    pub bc_bytes: i64,
    pub byte_stage: u32,
    pub time_stage: u32,
    timer: Option<Time>,
    pub phase: Phase,
}

impl Rp {
    pub fn new(p: &Params, line_rate: Rate, initial_rate: Rate) -> Rp {
        let line = line_rate.bps() as f64;
        let min_rate = (p.min_rate_bps as f64).min(line);
        let cr = (initial_rate.bps() as f64).clamp(min_rate, line);
        Rp {
            gd: p.gd,
            bc_limit: p.bc_limit_bytes.min(MAX_BYTES) as i64,
            timer_ps: p.timer_ps,
            fr_th: p.fr_th,
            r_ai: p.r_ai_bps as f64,
            r_hai: p.r_hai_bps as f64,
            min_rate,
            line,
            cr_bps: cr,
            tr_bps: cr,
            bc_bytes: p.bc_limit_bytes.min(MAX_BYTES) as i64,
            byte_stage: 0,
            time_stage: 0,
            timer: None,
            phase: if cr >= line { Phase::Released } else { Phase::FastRecovery },
        }
    }

    #[inline]
    pub fn rate_bps(&self) -> f64 {
        self.cr_bps
    }

    #[inline]
    pub fn next_timer(&self) -> Option<Time> {
        self.timer
    }

    fn arm_timer(&mut self, now: Time, period_ps: u64, rng: &mut Rng) {
        let d = ((period_ps as f64 * jitter(rng)).round() as u64).max(1);
        self.timer = Some(Time(now.0.saturating_add(d)));
    }

    /// A CNM carrying `qntz` (0..=63) arrived.
    pub fn on_cnm(&mut self, now: Time, qntz: u8, rng: &mut Rng) {
        if self.byte_stage != 0 {
            self.tr_bps = self.cr_bps;
        }
        let qntz = qntz.min(63) as f64;
        self.cr_bps = (self.cr_bps * (1.0 - self.gd * qntz)).max(self.min_rate);
        self.byte_stage = 0;
        self.time_stage = 0;
        self.bc_bytes = self.bc_limit;
        self.arm_timer(now, self.timer_ps, rng);
        self.phase = Phase::FastRecovery;
    }

    /// The source sent a frame of `frame_bytes`. A limiter created below line rate (a source's
    /// `initial_rate`) starts its timer with its first frame, as a CNM would have: both the byte
    /// counter and the timer count its cycles (protocols.md §1), and without the timer its time
    /// stage stays 0 and hyper-active increase never starts.
    pub fn on_tx(&mut self, now: Time, frame_bytes: u32, rng: &mut Rng) {
        if self.phase == Phase::Released {
            return;
        }
        if self.timer.is_none() {
            self.arm_timer(now, self.timer_ps, rng);
        }
        self.bc_bytes -= frame_bytes as i64;
        if self.bc_bytes < 0 {
            self.byte_stage = self.byte_stage.saturating_add(1);
            let limit = if self.byte_stage < self.fr_th { self.bc_limit } else { self.bc_limit / 2 };
            self.bc_bytes = (limit as f64 * jitter(rng)) as i64;
            self.self_increase();
        }
    }

    /// Timer event at `now`: acts only if `now` is the armed expiry (stale events are ignored).
    pub fn on_timer(&mut self, now: Time, rng: &mut Rng) -> bool {
        if self.timer != Some(now) {
            return false;
        }
        self.time_stage = self.time_stage.saturating_add(1);
        self.self_increase();
        if self.phase == Phase::Released {
            self.timer = None;
        } else {
            let period = if self.time_stage < self.fr_th { self.timer_ps } else { self.timer_ps / 2 };
            self.arm_timer(now, period, rng);
        }
        true
    }

    /// One increase cycle (protocols.md §1 `self_increase`).
    fn self_increase(&mut self) {
        let (b, t, th) = (self.byte_stage, self.time_stage, self.fr_th);
        let (ri, phase) = if b > th && t > th {
            (self.r_hai * (b.min(t) - th) as f64, Phase::HyperActiveIncrease)
        } else if b > th || t > th {
            (self.r_ai, Phase::ActiveIncrease)
        } else {
            (0.0, Phase::FastRecovery)
        };
        if (b == 1 || t == 1) && self.tr_bps > 10.0 * self.cr_bps {
            self.tr_bps /= 8.0;
        } else {
            self.tr_bps += ri;
        }
        self.cr_bps = ((self.cr_bps + self.tr_bps) / 2.0).min(self.line);
        self.phase = phase;
        if self.cr_bps >= self.line {
            // Release the limiter (see the module doc).
            self.cr_bps = self.line;
            self.tr_bps = self.line;
            self.byte_stage = 0;
            self.time_stage = 0;
            self.bc_bytes = self.bc_limit;
            self.timer = None;
            self.phase = Phase::Released;
        }
    }
}

/// QCN's 6-bit feedback: ⌊64 |Fb| / (Qeq (2w+1))⌋ of a non-positive Fb (bytes), at most 63 (S1's
/// linear quantization; a CP sends a CNM iff it is > 0). The scenario layer asks it too (a QCN qeq
/// whose full buffer quantizes to 0 is warned about).
pub fn quantize(qeq_bytes: f64, w: f64, fb_bytes: f64) -> u8 {
    let full = qeq_bytes * (2.0 * w + 1.0);
    ((64.0 * (-fb_bytes) / full).floor() as i64).clamp(0, 63) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    const LINE: Rate = Rate(10_000_000_000);

    #[test]
    fn one_cnm_by_hand() {
        // Qeq = 33000 B, w = 2: full scale Qeq (2w+1) = 165000 B.
        let p = Params::default();
        let mut cp = Cp::new(&p, 7);
        let mut rng = stream(3, Stream::Port, 0);
        // 99 frames of 1500 B leave time_to_mark at 150000 - 148500 = 1500 >= 0: no sample.
        for _ in 0..99 {
            assert_eq!(cp.on_arrival(10_000, 1500, &mut rng), None);
        }
        assert_eq!(cp.qlen_old, 0, "q_old changes only at a sample");
        // The 101st frame takes it below 0 (150000 - 151500 < 0): sample at q = 60000 B.
        assert_eq!(cp.on_arrival(10_000, 1500, &mut rng), None); // 100th: exactly 0, not < 0
        let mut replay = rng.clone();
        let fb = cp.on_arrival(60_000, 1500, &mut rng).expect("a CNM");
        // Qoff = 60000 - 33000 = 27000; Qδ = 60000 - 0 = 60000; Fb = -(27000 + 2*60000) = -147000;
        // qntz = floor(64 * 147000 / 165000) = floor(57.018...) = 57.
        assert_eq!(
            fb,
            Feedback { cpid: 7, signal: Signal::Qcn { qntz: 57, q_off_bytes: 27_000, q_delta_bytes: 60_000 } }
        );
        assert_eq!(cp.qlen_old, 60_000);
        // time_to_mark reloads from table[57 >> 3 = 7] = 18500 B times the jitter.
        let j = jitter(&mut replay);
        assert_eq!(cp.time_to_mark, (18_500.0 * j) as i64);
        // The RP cut: CR = 10 Gbps (1 - 57/128) = 5.546875 Gbps, TR stays at the line rate
        // (no increase cycle yet), T armed at U(0.85, 1.15) x 10 ms.
        let mut rp = Rp::new(&p, LINE, LINE);
        let mut rrng = stream(3, Stream::Flow, 1);
        let mut replay = rrng.clone();
        let Signal::Qcn { qntz, .. } = fb.signal else { unreachable!() };
        rp.on_cnm(Time(1000), qntz, &mut rrng);
        assert_eq!(rp.cr_bps, 5_546_875_000.0);
        assert_eq!(rp.tr_bps, 10e9);
        let d = ((10e9 * jitter(&mut replay)).round()) as u64;
        assert_eq!(rp.next_timer(), Some(Time(1000 + d)));
        assert!((8_500_000_000..=11_500_000_000).contains(&d));
        assert_eq!((rp.byte_stage, rp.time_stage, rp.bc_bytes), (0, 0, 150_000));
    }

    #[test]
    fn clip_and_no_cnm_when_fb_nonnegative() {
        let p = Params { sample_table_bytes: [1; 8], ..Params::default() };
        let mut cp = Cp::new(&p, 0);
        let mut rng = stream(1, Stream::Port, 0);
        // Huge queue: Fb clipped at -165000 -> 64, capped at 63.
        let fb = cp.on_arrival(10_000_000, 1500, &mut rng).unwrap();
        assert!(matches!(fb.signal, Signal::Qcn { qntz: 63, .. }));
        // Queue at Qeq but falling: Fb = -(0 + 2 (33000 - 10^7)) > 0 -> clipped to 0, no CNM.
        assert_eq!(cp.on_arrival(33_000, 1500, &mut rng), None);
        assert_eq!(cp.qlen_old, 33_000);
        // Small positive congestion: Fb = -(1000 + 2*1000) = -3000 -> floor(64*3000/165000) = 1.
        let fb = cp.on_arrival(34_000, 1500, &mut rng).unwrap();
        assert!(matches!(fb.signal, Signal::Qcn { qntz: 1, q_off_bytes: 1000, q_delta_bytes: 1000 }));
        // Qoff = 1333, Qδ = 333: Fb = -1999 -> floor(0.775) = 0: Fb < 0 but nothing to send.
        assert_eq!(cp.on_arrival(34_000 + 333, 1500, &mut rng).map(|_| ()), None);
    }

    #[test]
    fn byte_counter_cycle_by_hand() {
        // Start from one CNM with qntz = 64/2 -> CR = 5 Gbps; TR = 10 Gbps.
        let p = Params::default();
        let mut rp = Rp::new(&p, LINE, LINE);
        let mut rng = stream(9, Stream::Flow, 0);
        rp.on_cnm(Time(0), 64, &mut rng); // qntz is capped at 63
        let cr0 = 10e9 * (1.0 - 63.0 / 128.0);
        assert_eq!(rp.cr_bps, cr0);
        // Each byte-counter expiry in fast recovery: CR = (CR + TR)/2 with TR fixed at 10 Gbps,
        // except the first cycle's TR/8 rule, which needs TR > 10 CR (10 > 10*5.08: no).
        let (mut cr, tr) = (cr0, 10e9);
        for stage in 1..=5u32 {
            let mut replay = rng.clone();
            let limit = if stage < 5 { 150_000.0 } else { 75_000.0 }; // halved once stage >= FR_TH
                                                                      // drain the counter: frames of 1000 B until BC < 0
            let mut sent = 0;
            while rp.byte_stage < stage {
                rp.on_tx(Time(0), 1000, &mut rng);
                sent += 1;
            }
            assert!(sent >= 1);
            cr = (cr + tr) / 2.0;
            assert_eq!(rp.cr_bps, cr, "stage {stage}: fast recovery averages CR toward TR");
            assert_eq!(rp.tr_bps, tr, "stage {stage}: TR unchanged in FR");
            assert_eq!(rp.phase, Phase::FastRecovery);
            assert_eq!(rp.bc_bytes, (limit * jitter(&mut replay)) as i64, "stage {stage}");
        }
        // Stage 6 is "above FR_TH": active increase TR += R_AI = 5 Mb/s.
        while rp.byte_stage < 6 {
            rp.on_tx(Time(0), 1000, &mut rng);
        }
        let tr = tr + 5e6;
        // CR after 5 FR cycles: 10 - (10 - 5.078125)/32 = 9.846191... Gbps < line.
        cr = ((cr + tr) / 2.0).min(10e9);
        assert_eq!(rp.phase, Phase::ActiveIncrease);
        assert_eq!((rp.cr_bps, rp.tr_bps), (cr, tr));
        // A CNM now (byte_stage != 0): TR = CR, then the cut.
        rp.on_cnm(Time(5), 8, &mut rng);
        assert_eq!(rp.tr_bps, cr);
        assert_eq!(rp.cr_bps, cr * (1.0 - 8.0 / 128.0));
        assert_eq!((rp.byte_stage, rp.time_stage), (0, 0));
    }

    #[test]
    fn timer_stages_hai_first_cycle_rule_and_release() {
        let p = Params::default();
        let mut rp = Rp::new(&p, LINE, LINE);
        let mut rng = stream(2, Stream::Flow, 0);
        // Deep cut: two CNMs of 63 without increase in between: TR stays 10 G, CR = 10G (65/128)^2.
        rp.on_cnm(Time(0), 63, &mut rng);
        rp.on_cnm(Time(0), 63, &mut rng);
        let cr = 10e9 * (65.0f64 / 128.0).powi(2);
        assert_eq!(rp.cr_bps, cr);
        // Stale timer events are ignored.
        let t = rp.next_timer().unwrap();
        assert!(!rp.on_timer(Time(t.0 - 1), &mut rng));
        // CR = 2.58 Gbps, TR = 10 Gbps: TR > 10 CR is false, so the first cycle averages.
        assert!(rp.on_timer(t, &mut rng));
        assert_eq!(rp.time_stage, 1);
        assert_eq!(rp.cr_bps, (cr + 10e9) / 2.0);
        // First-cycle rule: MinRate-level CR with TR = line rate: TR > 10 CR -> TR = TR/8.
        let mut rp = Rp::new(&Params { min_rate_bps: 100_000_000, ..p.clone() }, LINE, Rate(100_000_000));
        rp.on_cnm(Time(0), 1, &mut rng); // CR = max(100 Mb/s, 100 Mb/s (127/128)) = 100 Mb/s
        assert_eq!(rp.cr_bps, 100e6);
        rp.tr_bps = 10e9;
        let t = rp.next_timer().unwrap();
        rp.on_timer(t, &mut rng);
        assert_eq!(rp.tr_bps, 10e9 / 8.0);
        assert_eq!(rp.cr_bps, (100e6 + 10e9 / 8.0) / 2.0);
        // HAI: with both stages > FR_TH, Ri = R_HAI (min(stages) - FR_TH).
        let mut rp = Rp::new(&p, LINE, LINE);
        rp.on_cnm(Time(0), 63, &mut rng);
        rp.byte_stage = 7;
        rp.time_stage = 6;
        let (cr, tr) = (rp.cr_bps, rp.tr_bps);
        let t = rp.next_timer().unwrap();
        rp.on_timer(t, &mut rng); // time_stage -> 7: Ri = 50 Mb/s * (7 - 5)
        assert_eq!(rp.phase, Phase::HyperActiveIncrease);
        assert_eq!(rp.tr_bps, tr + 100e6);
        assert_eq!(rp.cr_bps, (cr + tr + 100e6) / 2.0);
        // Timer halves once time_stage >= FR_TH: the next expiry is within [0.85, 1.15] x 5 ms.
        let d = rp.next_timer().unwrap().0 - t.0;
        assert!((4_250_000_000..=5_750_000_000).contains(&d), "{d}");
        // Release at line rate: CR capped, no timer, TX no longer counts.
        let mut rp = Rp::new(&p, LINE, LINE);
        rp.on_cnm(Time(0), 1, &mut rng); // CR = 10 G (127/128), TR = 10 G
        for _ in 0..40 {
            let t = rp.next_timer();
            if let Some(t) = t {
                rp.on_timer(t, &mut rng);
            }
        }
        assert_eq!(rp.phase, Phase::Released);
        assert_eq!((rp.cr_bps, rp.tr_bps, rp.next_timer()), (10e9, 10e9, None));
        let bc = rp.bc_bytes;
        rp.on_tx(Time(0), 1500, &mut rng);
        assert_eq!(rp.bc_bytes, bc);
    }

    /// A limiter created below line rate (a source's `initial_rate`) counts time cycles from its
    /// first frame: hyper-active increase starts once both stages pass FR_TH, after 5 timer
    /// periods of 10 ms and one of 5 ms (55 ms, +-15 % jitter), and the rate then climbs by
    /// R_HAI x (stage - 5) per 75 KB cycle: line rate by about 80 ms from 1 Gbps. Without the
    /// timer only the byte counter counted, active increase alone (+5 Mb/s a cycle) took ~300 ms.
    #[test]
    fn a_limiter_started_below_line_rate_runs_its_timer() {
        let p = Params::default();
        let mut rng = stream(3, Stream::Flow, 0);
        let mut rp = Rp::new(&p, LINE, Rate(1_000_000_000));
        assert_eq!((rp.phase, rp.next_timer()), (Phase::FastRecovery, None));
        // Frames of 1500 B paced at CR; the timer fires when due.
        let (mut now, frame) = (0.0f64, 1500u32);
        let mut hai_at = None;
        while rp.phase != Phase::Released && now < 0.3 {
            let next_tx = now + frame as f64 * 8.0 / rp.rate_bps();
            match rp.next_timer() {
                Some(t) if (t.0 as f64) * 1e-12 <= next_tx => {
                    now = t.0 as f64 * 1e-12;
                    assert!(rp.on_timer(t, &mut rng));
                }
                _ => {
                    now = next_tx;
                    rp.on_tx(Time((now * 1e12) as u64), frame, &mut rng);
                }
            }
            if rp.phase == Phase::HyperActiveIncrease && hai_at.is_none() {
                hai_at = Some(now);
            }
        }
        let hai_at = hai_at.expect("hyper-active increase started");
        // 55 ms with the +-15 % jitter of each period
        assert!((0.055 * 0.85..=0.055 * 1.15).contains(&hai_at), "HAI at {hai_at} s");
        assert_eq!(rp.phase, Phase::Released, "line rate not reached in 0.3 s");
        assert!(now < 0.12, "line rate at {now} s; the timer-driven climb takes about 80 ms");
    }

    #[test]
    fn validate_names_fields() {
        let bad = [
            (Params { qeq_bytes: 0, ..Params::default() }, "l2.qeq_bytes"),
            (Params { w: f64::NAN, ..Params::default() }, "l2.w"),
            (Params { gd: 0.5, ..Params::default() }, "l2.gd"),
            (Params { sample_table_bytes: [1, 2, 3, 0, 5, 6, 7, 8], ..Params::default() }, "l2.sample_table_bytes[3]"),
            (Params { bc_limit_bytes: 1, ..Params::default() }, "l2.bc_limit_bytes"),
            (Params { timer_ps: 0, ..Params::default() }, "l2.timer_ps"),
            (Params { fr_th: 0, ..Params::default() }, "l2.fr_th"),
            (Params { r_ai_bps: 0, ..Params::default() }, "l2.r_ai_bps"),
            (Params { r_hai_bps: 0, ..Params::default() }, "l2.r_hai_bps"),
            (Params { min_rate_bps: 0, ..Params::default() }, "l2.min_rate_bps"),
        ];
        for (p, field) in bad {
            let e = p.validate("l2").unwrap_err().to_string();
            assert!(e.starts_with(&format!("{field}:")), "{e}");
        }
        Params::default().validate("l2").unwrap();
    }
}
