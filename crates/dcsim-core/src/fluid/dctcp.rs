//! The DCTCP fluid model of Alizadeh, Javanmard & Prabhakar, "Analysis of DCTCP: Stability,
//! Convergence, and Fairness" (SIGMETRICS 2011), Section 2.2 and 3.1.
//!
//! Physical form, eqs. (5)-(8), with W in packets, α dimensionless, q in packets, C in packets/s,
//! d in seconds, R(t) = d + q(t)/C and the fixed feedback delay R* = d + K/C:
//!
//! ```text
//! dW/dt = 1/R(t) - W(t) α(t) / (2 R(t)) · p(t - R*)          (5)
//! dα/dt = g / R(t) · (p(t - R*) - α(t))                      (6)
//! dq/dt = N W(t) / R(t) - C                                  (7)
//! p(t)  = 1{q(t) > K}                                        (8)
//! ```
//!
//! (7) lets q go negative; with `queue_floor` the physical floor q >= 0 holds with the
//! max(·, 0) rule. Normalized form, eqs. (10)-(14), time in units of R*, q~ = (q - K)/(C R*),
//! w̄ = (Cd + K)/N:
//!
//! ```text
//! dW~/dt = 1/(1+q~) · (1 - W~ α~/2 · p~(t-1))                 (11)
//! dα~/dt = g/(1+q~) · (p~(t-1) - α~)                          (12)
//! dq~/dt = W~ / (w̄ (1+q~)) - 1                                (13)
//! p~(t)  = 1{q~(t) > 0}                                       (14)
//! ```
//!
//! With ψ = K/(Cd) the floor q~ >= -ψ/(1+ψ) (that is, q >= 0) replaces (13) by
//! max(·, 0) on the floor (Section 3.3.2).

use super::dde::{DdeSystem, Switch};
use super::{check, FluidError};

/// Default initial state of the normalized model: W~ = w̄, α~ = min(1, sqrt(2/w̄)), q~ = 0
/// (the window at its average, α at the Sawtooth-model value sqrt(2/W*), the queue at K).
pub fn default_normalized_init(wbar: f64) -> [f64; 3] {
    [wbar, (2.0 / wbar).sqrt().min(1.0), 0.0]
}

/// Normalized DCTCP fluid model, eqs. (11)-(14); state [W~ (packets), α~, q~].
#[derive(Debug, Clone, PartialEq)]
pub struct DctcpNormalized {
    /// Average per-flow window w̄ = (Cd + K)/N, packets.
    pub wbar: f64,
    /// EWMA gain g of eq. (3).
    pub g: f64,
    /// ψ = K/(Cd); `Some` enables the floor q~ >= -ψ/(1+ψ) of Section 3.3.2.
    pub psi: Option<f64>,
    /// History held constant for t <= 0: [W~0, α~0, q~0].
    pub init: [f64; 3],
    delays: [f64; 1],
    switches: [Switch; 1],
}

impl DctcpNormalized {
    /// Validate and build. `init = None` uses [`default_normalized_init`].
    pub fn new(wbar: f64, g: f64, psi: Option<f64>, init: Option<[f64; 3]>) -> Result<Self, FluidError> {
        check("wbar", wbar, wbar > 0.0 && wbar <= 1e9, "in (0, 1e9] packets")?;
        check("g", g, g > 0.0 && g <= 1.0, "in (0, 1]")?;
        if let Some(psi) = psi {
            check("psi", psi, psi > 0.0 && psi <= 1e6, "in (0, 1e6] (psi = K/(C d))")?;
        }
        let init = init.unwrap_or_else(|| default_normalized_init(wbar));
        check("init.W", init[0], init[0] >= 0.0, "a finite number >= 0 packets")?;
        check("init.alpha", init[1], (0.0..=1.0).contains(&init[1]), "in [0, 1]")?;
        let q_min = psi.map(|p| -p / (1.0 + p)).unwrap_or(-1.0);
        let range = match psi {
            Some(_) => format!(">= -psi/(1+psi) = {q_min}"),
            None => "> -1 (1 + q~ is the normalized RTT)".to_string(),
        };
        check("init.q", init[2], if psi.is_some() { init[2] >= q_min } else { init[2] > -1.0 }, &range)?;
        Ok(Self { wbar, g, psi, init, delays: [1.0], switches: [Switch { delay: 0, component: 2, threshold: 0.0 }] })
    }
}

impl DdeSystem<3> for DctcpNormalized {
    fn names(&self) -> [&'static str; 3] {
        ["W", "alpha", "q"]
    }
    fn delays(&self) -> &[f64] {
        &self.delays
    }
    fn switches(&self) -> &[Switch] {
        &self.switches
    }
    fn floors(&self) -> [f64; 3] {
        let q_floor = self.psi.map(|p| -p / (1.0 + p)).unwrap_or(f64::NEG_INFINITY);
        [f64::NEG_INFINITY, f64::NEG_INFINITY, q_floor]
    }
    fn reads_delayed_state(&self) -> bool {
        false // the delay enters only through p(t - R*)
    }
    fn history(&self, _t: f64) -> [f64; 3] {
        self.init
    }
    /// Eqs. (11)-(13); `modes[0]` is p~(t - 1) of eq. (14).
    #[inline]
    fn rhs(&self, _t: f64, y: &[f64; 3], _delayed: &[[f64; 3]], modes: &[bool]) -> [f64; 3] {
        let [w, alpha, q] = *y;
        let p = if modes[0] { 1.0 } else { 0.0 };
        let inv_r = 1.0 / (1.0 + q);
        if inv_r.is_nan() || inv_r <= 0.0 {
            return [f64::NAN; 3]; // 1 + q~ <= 0: outside the model's domain; reported as divergence
        }
        [inv_r * (1.0 - 0.5 * w * alpha * p), self.g * inv_r * (p - alpha), w * inv_r / self.wbar - 1.0]
    }
}

/// DCTCP fluid model in physical units, eqs. (5)-(8); state [W (packets), α, q (packets)], t in s.
#[derive(Debug, Clone, PartialEq)]
#[allow(non_snake_case)]
pub struct Dctcp {
    /// Bottleneck capacity, packets/s.
    pub C_pps: f64,
    /// Propagation delay d, seconds.
    pub d_s: f64,
    /// Marking threshold K, packets.
    pub K_pkt: f64,
    /// EWMA gain g.
    pub g: f64,
    /// Number of flows N.
    pub N: f64,
    /// Queue floor q >= 0 (the physical queue); `false` is eq. (7) as printed.
    pub queue_floor: bool,
    /// History for t <= 0: [W0 (packets), α0, q0 (packets)].
    pub init: [f64; 3],
    delays: [f64; 1],
    switches: [Switch; 1],
}

#[allow(non_snake_case)]
impl Dctcp {
    /// Validate and build. `init = None`: the normalized default mapped back,
    /// W0 = w̄ = (Cd + K)/N, α0 = min(1, sqrt(2/w̄)), q0 = K.
    pub fn new(
        C_pps: f64,
        d_s: f64,
        K_pkt: f64,
        g: f64,
        N: f64,
        queue_floor: bool,
        init: Option<[f64; 3]>,
    ) -> Result<Self, FluidError> {
        check("C", C_pps, C_pps > 0.0, "> 0 packets/s")?;
        check("d", d_s, d_s > 0.0 && d_s <= 100.0, "in (0, 100] s")?;
        check("K", K_pkt, K_pkt >= 0.0, ">= 0 packets")?;
        check("g", g, g > 0.0 && g <= 1.0, "in (0, 1]")?;
        check("N", N, N >= 1.0, ">= 1 flow")?;
        let r_star = d_s + K_pkt / C_pps;
        let wbar = C_pps * r_star / N;
        let init = init.unwrap_or_else(|| {
            let [w, a, _] = default_normalized_init(wbar);
            [w, a, K_pkt]
        });
        check("init.W", init[0], init[0] >= 0.0, "a finite number >= 0 packets")?;
        check("init.alpha", init[1], (0.0..=1.0).contains(&init[1]), "in [0, 1]")?;
        if queue_floor {
            check("init.q", init[2], init[2] >= 0.0, ">= 0 packets")?;
        } else {
            check(
                "init.q",
                init[2],
                init[2] > -C_pps * d_s,
                &format!("> -C d = {} packets (R = d + q/C > 0)", -C_pps * d_s),
            )?;
        }
        Ok(Self {
            C_pps,
            d_s,
            K_pkt,
            g,
            N,
            queue_floor,
            init,
            delays: [r_star],
            switches: [Switch { delay: 0, component: 2, threshold: K_pkt }],
        })
    }

    /// Feedback delay R* = d + K/C, seconds (Section 2.2).
    pub fn r_star(&self) -> f64 {
        self.delays[0]
    }

    /// Average per-flow window w̄ = (Cd + K)/N, packets (Section 3.1).
    pub fn wbar(&self) -> f64 {
        (self.C_pps * self.d_s + self.K_pkt) / self.N
    }
}

impl DdeSystem<3> for Dctcp {
    fn names(&self) -> [&'static str; 3] {
        ["W", "alpha", "q"]
    }
    fn delays(&self) -> &[f64] {
        &self.delays
    }
    fn switches(&self) -> &[Switch] {
        &self.switches
    }
    /// The marking indicator p(t) = 1{q(t) > K} of eq. (8), and the link's utilization: 1 while
    /// q > 0 (the link is busy), else the arrival rate over C, min(1, N W / (R C)) (eq. (7)).
    fn observables(&self) -> &[&'static str] {
        &["p", "utilization"]
    }
    fn observe(&self, y: &[f64; 3], out: &mut [f64]) {
        let [w, _, q] = *y;
        out[0] = if q > self.K_pkt { 1.0 } else { 0.0 };
        out[1] = if q > 0.0 { 1.0 } else { (self.N * w / ((self.d_s + q / self.C_pps) * self.C_pps)).min(1.0) };
    }
    fn floors(&self) -> [f64; 3] {
        [f64::NEG_INFINITY, f64::NEG_INFINITY, if self.queue_floor { 0.0 } else { f64::NEG_INFINITY }]
    }
    fn reads_delayed_state(&self) -> bool {
        false // the delay enters only through p(t - R*)
    }
    fn history(&self, _t: f64) -> [f64; 3] {
        self.init
    }
    /// Eqs. (5)-(7) with R(t) = d + q(t)/C; `modes[0]` is p(t - R*) of eq. (8).
    #[inline]
    fn rhs(&self, _t: f64, y: &[f64; 3], _delayed: &[[f64; 3]], modes: &[bool]) -> [f64; 3] {
        let [w, alpha, q] = *y;
        let p = if modes[0] { 1.0 } else { 0.0 };
        let r = self.d_s + q / self.C_pps;
        if r.is_nan() || r <= 0.0 {
            return [f64::NAN; 3];
        }
        [1.0 / r - w * alpha / (2.0 * r) * p, self.g / r * (p - alpha), self.N * w / r - self.C_pps]
    }
}
