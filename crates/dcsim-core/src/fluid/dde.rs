//! Fixed-step RK4 integrator for delay-differential equations with fixed delays.
//!
//! The system is `y'(t) = F(t, y(t), y(t - tau_1), ..., y(t - tau_k), u(t))` with a history
//! `y(t) = h(t)` for `t <= 0`, where `u` are *delayed indicators* `u_j(t) = 1{y_c(t - tau_k) > thr}`
//! (the DCTCP marking process p(t - R*) is one). Numerics:
//!
//! * **Grid.** Steps of `dt`; the state and its derivative are kept on the grid in a ring buffer
//!   of `ceil(max tau / dt) + 3` samples (bounded memory), the output is decimated.
//! * **Delayed states.** At stage time `t_n + c dt` the delayed state `y(t_n + c dt - tau)` is read
//!   from the grid: exactly when `tau` is an integer number `m` of steps and `c` is 0 or 1, by the
//!   cubic Hermite interpolant of (y, y') on the grid interval otherwise (error O(dt^4), so RK4
//!   keeps order 4). A delay within 1e-9 relative of an integer number of steps is snapped to it.
//! * **Discontinuities.** The switching times of the delayed indicators are known in advance:
//!   they are the threshold crossings of the delayed component, located on the (Hermite)
//!   history by bisection. A step that contains one is split there; on every sub-step the
//!   indicators are constant (evaluated at the sub-step midpoint), so the right-hand side is
//!   smooth inside each RK4 sub-step. Without this the global error would be O(dt).
//!   The history generally joins the solution at t = 0 with a jump in y' (a constant history
//!   under a non-zero F), which the delays carry forward: the delayed state y(t - tau) has a
//!   kink at t = tau and a jump in its second derivative at 2 tau. A step that contains one of
//!   these times (tau_i, tau_i + tau_j) is split there too, as a switching time is. On a grid
//!   where every delay is a whole number of steps (the Python front end's default dt) they are
//!   grid points and nothing is split; off it, the split keeps the kink out of the RK4 stages
//!   (order 2 without it, a review) and the order is 3: the Hermite history still straddles the
//!   jump of y'' at tau, which is not a grid point (`tests/fluid_dde.rs`).
//! * **Floors.** A component with a lower bound `lb` obeys `y' = max(F, 0)` while `y = lb`
//!   (the rule of Section 3.3.2 of the DCTCP analysis paper and of eq. (4) of the DX paper):
//!   a component on its floor at the start of a (sub)step uses max(F, 0) in all RK4 stages
//!   (so it stays, or lifts off when F turns positive); stage and step states are projected onto
//!   `y >= lb`. Floor contacts are not located, so trajectories that touch a floor converge with
//!   order 1 near the contact.
//! * **Statistics at full resolution.** With [`Options::stats_from`] the run also returns the
//!   minimum, mean and maximum of every state component and of the system's
//!   [`DdeSystem::observables`] over every grid point from that time on ([`GridStats`]), so a
//!   summary of a long run does not depend on its decimated output (a 89 s DCTCP run sampled at
//!   4 000 rows put the marking fraction at 41.3 % against 39.7 % on the grid).
//! * **Envelope.** With [`Options::envelope`] each output row also has the minimum and maximum of
//!   every component over the steps since the row before ([`Envelope`]), so a plot of a run
//!   decimated past its oscillation draws the band the state sweeps, not a stroboscopic alias.
//! * **Determinism.** No adaptivity, no randomness, no threads inside one run: the same inputs
//!   give bit-identical outputs; [`integrate_batch`] runs independent systems in parallel (on a
//!   thread pool of its own, so that it also works in a forked process) and returns them in
//!   input order.

#![allow(clippy::needless_range_loop)] // state components are indexed like the equations

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{check, FluidError};

/// Maximum number of distinct delays and delayed indicators a system may declare.
pub const MAX_DELAYS: usize = 4;
/// Maximum number of delayed indicators (switches) a system may declare.
pub const MAX_SWITCHES: usize = 4;
/// Maximum length of the longest delay in steps (memory guard for the history ring).
pub const MAX_DELAY_STEPS: f64 = 5e7;
/// Maximum number of output samples of one run (memory guard).
pub const MAX_SAMPLES: usize = 20_000_000;
/// Maximum number of observables a system may declare ([`DdeSystem::observables`]).
pub const MAX_OBSERVABLES: usize = 4;
/// Most derivative jumps the delays carry from the history's joint at t = 0 (tau_i, and
/// tau_i + tau_j for i <= j): where a step is split ([`Stepper::breaks`]).
const MAX_BREAKS: usize = MAX_DELAYS + MAX_DELAYS * (MAX_DELAYS + 1) / 2;

/// A delayed indicator `u(t) = 1{ y[component](t - delays[delay]) > threshold }`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Switch {
    /// Index into [`DdeSystem::delays`].
    pub delay: usize,
    /// Component of the state whose delayed value is compared.
    pub component: usize,
    /// The indicator is 1 strictly above this value.
    pub threshold: f64,
}

/// A delay-differential system with `D` state components.
pub trait DdeSystem<const D: usize>: Sync {
    /// Component names (for error messages).
    fn names(&self) -> [&'static str; D];
    /// The fixed delays, in the system's time unit; each must be >= 2 dt.
    fn delays(&self) -> &[f64];
    /// Delayed indicators handed to [`DdeSystem::rhs`] as `modes` (empty by default).
    fn switches(&self) -> &[Switch] {
        &[]
    }
    /// Lower bounds of the components (`f64::NEG_INFINITY`: none).
    fn floors(&self) -> [f64; D] {
        [f64::NEG_INFINITY; D]
    }
    /// Whether [`DdeSystem::rhs`] reads `delayed` (default true). A system whose delays enter only
    /// through its indicators returns false, and the integrator skips the interpolation.
    fn reads_delayed_state(&self) -> bool {
        true
    }
    /// Names of derived quantities that [`integrate`] summarizes at every grid point beside the
    /// state components when [`Options::stats_from`] is set (at most [`MAX_OBSERVABLES`]; none by
    /// default), e.g. the marking indicator 1{q > K}.
    fn observables(&self) -> &[&'static str] {
        &[]
    }
    /// Values of [`DdeSystem::observables`] at state `y`, into `out[..observables().len()]`.
    fn observe(&self, _y: &[f64; D], _out: &mut [f64]) {}
    /// History `y(t)` for `t <= 0`; `history(0.0)` is the initial state.
    fn history(&self, t: f64) -> [f64; D];
    /// Right-hand side at time `t`, state `y`, delayed states `delayed[k] = y(t - delays[k])`
    /// and indicator values `modes[j]` of `switches[j]`.
    fn rhs(&self, t: f64, y: &[f64; D], delayed: &[[f64; D]], modes: &[bool]) -> [f64; D];
}

/// Step and output control of one run (time in the system's unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Integration step.
    pub dt: f64,
    /// End time (the last step ends at `ceil(t_end / dt) * dt`).
    pub t_end: f64,
    /// Output spacing; must be an integer multiple of `dt` (within 1e-9 relative).
    pub sample_dt: f64,
    /// First output time (rounded to the grid); samples at `t_from + k * sample_dt`.
    pub t_from: f64,
    /// First time of the full-resolution statistics ([`GridStats`], over the grid points at or
    /// after it); `None`: none are kept.
    pub stats_from: Option<f64>,
    /// Last time of the statistics (the grid point at or after it, at most the run's last); `None`:
    /// the run's end. A run extended to a whole output row keeps the window the user asked for.
    pub stats_to: Option<f64>,
    /// Keep each output row's [`Envelope`] (min and max since the row before).
    pub envelope: bool,
}

impl Options {
    /// Options without full-resolution statistics.
    pub fn new(dt: f64, t_end: f64, sample_dt: f64, t_from: f64) -> Self {
        Self { dt, t_end, sample_dt, t_from, stats_from: None, stats_to: None, envelope: false }
    }

    /// Validate against a system's delays; returns (n_steps, stride, n_from).
    fn grid(&self, delays: &[f64]) -> Result<(usize, usize, usize), FluidError> {
        check("dt", self.dt, self.dt > 0.0, "a finite number > 0")?;
        check("t_end", self.t_end, self.t_end > 0.0, "a finite number > 0")?;
        check("sample_dt", self.sample_dt, self.sample_dt >= self.dt, &format!("a finite number >= dt = {}", self.dt))?;
        check(
            "t_from",
            self.t_from,
            self.t_from >= 0.0 && self.t_from <= self.t_end,
            &format!("in [0, t_end = {}]", self.t_end),
        )?;
        let stride_f = self.sample_dt / self.dt;
        let stride = stride_f.round();
        check(
            "sample_dt",
            self.sample_dt,
            (stride_f - stride).abs() <= 1e-9 * stride_f,
            &format!("an integer multiple of dt = {}", self.dt),
        )?;
        let n_steps_f = (self.t_end / self.dt * (1.0 - 1e-12)).ceil();
        check("t_end", self.t_end, n_steps_f <= 1e11, &format!("at most 1e11 steps of dt = {}", self.dt))?;
        for (k, &tau) in delays.iter().enumerate() {
            check(
                &format!("delay[{k}]"),
                tau,
                tau >= 2.0 * self.dt * (1.0 - 1e-12),
                &format!(">= 2 dt = {}", 2.0 * self.dt),
            )?;
        }
        if let Some(from) = self.stats_from {
            // t_end within rounding: a caller's t_end rounded to whole output rows may end 1 ulp short
            let end = self.t_end * (1.0 + 1e-9);
            check("stats_from", from, from >= 0.0 && from <= end, &format!("in [0, t_end = {}]", self.t_end))?;
            if let Some(to) = self.stats_to {
                check(
                    "stats_to",
                    to,
                    to >= from && to <= end,
                    &format!("in [stats_from = {from}, t_end = {}]", self.t_end),
                )?;
            }
        }
        let n_steps = n_steps_f as usize;
        let stride = stride as usize;
        let n_from = (self.t_from / self.dt).round() as usize;
        let n_samples = if n_from > n_steps { 0 } else { (n_steps - n_from) / stride + 1 };
        check(
            "sample_dt",
            self.sample_dt,
            n_samples <= MAX_SAMPLES,
            &format!("large enough for at most {MAX_SAMPLES} samples over [t_from, t_end]"),
        )?;
        Ok((n_steps, stride, n_from))
    }
}

/// Decimated output of one run: `t[i]` and `y[c][i]`, and the statistics at full resolution
/// when [`Options::stats_from`] asked for them.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory<const D: usize> {
    pub t: Vec<f64>,
    pub y: [Vec<f64>; D],
    pub stats: Option<GridStats>,
    pub envelope: Option<Envelope<D>>,
}

/// Per output row `i` and component `c`: `lo[c][i]`, `hi[c][i]` are the minimum and maximum of the
/// component over the grid points after row `i - 1` up to row `i` (the first row: its own point).
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope<const D: usize> {
    pub lo: [Vec<f64>; D],
    pub hi: [Vec<f64>; D],
}

/// Running extremes since the last output row, pushed at each row.
struct EnvelopeAcc<const D: usize> {
    lo: [f64; D],
    hi: [f64; D],
    out: Envelope<D>,
}

impl<const D: usize> EnvelopeAcc<D> {
    fn new(rows: usize) -> Self {
        Self {
            lo: [f64::INFINITY; D],
            hi: [f64::NEG_INFINITY; D],
            out: Envelope {
                lo: std::array::from_fn(|_| Vec::with_capacity(rows)),
                hi: std::array::from_fn(|_| Vec::with_capacity(rows)),
            },
        }
    }

    /// Grid point `y`; `row`: it is an output row (push the extremes and start again).
    #[inline]
    fn add(&mut self, y: &[f64; D], row: bool) {
        for i in 0..D {
            self.lo[i] = self.lo[i].min(y[i]);
            self.hi[i] = self.hi[i].max(y[i]);
        }
        if row {
            for i in 0..D {
                self.out.lo[i].push(self.lo[i]);
                self.out.hi[i].push(self.hi[i]);
            }
            self.lo = [f64::INFINITY; D];
            self.hi = [f64::NEG_INFINITY; D];
        }
    }
}

/// Minimum, mean and maximum of each state component, then of each observable, over every grid
/// point `n dt` with `from <= n dt <= to`: the mean is the average over those points, the time
/// average on the step grid (each point stands for one step; the two ends count as whole points).
#[derive(Debug, Clone, PartialEq)]
pub struct GridStats {
    /// The first grid time included (`stats_from` rounded up to the grid).
    pub from: f64,
    /// The last grid time included (`stats_to` rounded up to the grid, or the run's end).
    pub to: f64,
    /// Number of grid points included.
    pub points: u64,
    /// State component names, then observable names.
    pub names: Vec<&'static str>,
    pub min: Vec<f64>,
    pub mean: Vec<f64>,
    pub max: Vec<f64>,
}

/// Running minimum, maximum and compensated (Neumaier) sum of up to D + MAX_OBSERVABLES values:
/// a 1e8-step run's sums keep their last digits.
struct StatsAcc<const D: usize> {
    n_from: usize,
    n_to: usize,
    n_obs: usize,
    points: u64,
    min: Vec<f64>,
    max: Vec<f64>,
    sum: Vec<f64>,
    carry: Vec<f64>,
}

impl<const D: usize> StatsAcc<D> {
    fn new(n_from: usize, n_to: usize, n_obs: usize) -> Self {
        let k = D + n_obs;
        Self {
            n_from,
            n_to,
            n_obs,
            points: 0,
            min: vec![f64::INFINITY; k],
            max: vec![f64::NEG_INFINITY; k],
            sum: vec![0.0; k],
            carry: vec![0.0; k],
        }
    }

    #[inline]
    fn add<S: DdeSystem<D>>(&mut self, sys: &S, n: usize, y: &[f64; D]) {
        if n < self.n_from || n > self.n_to {
            return;
        }
        let mut v = [0.0; MAX_OBSERVABLES];
        sys.observe(y, &mut v[..self.n_obs]);
        for (i, &x) in y.iter().chain(v[..self.n_obs].iter()).enumerate() {
            self.min[i] = self.min[i].min(x);
            self.max[i] = self.max[i].max(x);
            let t = self.sum[i] + x;
            self.carry[i] += if self.sum[i].abs() >= x.abs() { (self.sum[i] - t) + x } else { (x - t) + self.sum[i] };
            self.sum[i] = t;
        }
        self.points += 1;
    }

    fn finish(self, names: Vec<&'static str>, dt: f64) -> GridStats {
        let n = self.points as f64;
        // The mean of values between min and max lies between them; the division's rounding may
        // not (an ulp past the max of a constant: a probe), so it is clamped.
        let mean =
            (0..self.sum.len()).map(|i| ((self.sum[i] + self.carry[i]) / n).clamp(self.min[i], self.max[i])).collect();
        GridStats {
            from: self.n_from as f64 * dt,
            to: self.n_to as f64 * dt,
            points: self.points,
            names,
            min: self.min,
            mean,
            max: self.max,
        }
    }
}

/// The grid history: y and y' at the last `cap` grid points.
struct Ring<const D: usize> {
    y: Vec<[f64; D]>,
    f: Vec<[f64; D]>,
    cap: usize,
}

impl<const D: usize> Ring<D> {
    #[inline]
    fn y(&self, n: usize) -> &[f64; D] {
        &self.y[n % self.cap]
    }
    #[inline]
    fn f(&self, n: usize) -> &[f64; D] {
        &self.f[n % self.cap]
    }
}

/// Cubic Hermite interpolation on one grid interval, `theta` in (0, 1).
#[inline]
fn hermite<const D: usize>(
    y0: &[f64; D],
    f0: &[f64; D],
    y1: &[f64; D],
    f1: &[f64; D],
    theta: f64,
    dt: f64,
) -> [f64; D] {
    let t2 = theta * theta;
    let t3 = t2 * theta;
    let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
    let h10 = (t3 - 2.0 * t2 + theta) * dt;
    let h01 = -2.0 * t3 + 3.0 * t2;
    let h11 = (t3 - t2) * dt;
    let mut out = [0.0; D];
    for i in 0..D {
        out[i] = h00 * y0[i] + h10 * f0[i] + h01 * y1[i] + h11 * f1[i];
    }
    out
}

struct Stepper<'a, const D: usize, S: DdeSystem<D>> {
    sys: &'a S,
    dt: f64,
    /// Delays in steps.
    m: Vec<f64>,
    switches: Vec<Switch>,
    floors: [f64; D],
    reads_delayed: bool,
    ring: Ring<D>,
    /// Grid positions (steps), ascending, of the jumps in the delayed states' derivatives that
    /// the history's joint at t = 0 propagates: m_i (a kink of y(t - tau_i)) and m_i + m_j (a
    /// jump of its second derivative); empty for a system that reads no delayed state.
    breaks: Vec<f64>,
}

impl<'a, const D: usize, S: DdeSystem<D>> Stepper<'a, D, S> {
    /// State at grid position `pos` (in steps, may be fractional or negative).
    #[inline]
    fn at(&self, pos: f64) -> [f64; D] {
        if pos < 0.0 {
            return self.sys.history(pos * self.dt);
        }
        let i = pos.floor();
        let theta = pos - i;
        let i = i as usize;
        if theta == 0.0 {
            return *self.ring.y(i);
        }
        hermite(self.ring.y(i), self.ring.f(i), self.ring.y(i + 1), self.ring.f(i + 1), theta, self.dt)
    }

    #[inline]
    fn project(&self, y: &mut [f64; D]) {
        for i in 0..D {
            if y[i] < self.floors[i] {
                y[i] = self.floors[i];
            }
        }
    }

    /// F at grid position `pos` (steps) and state `y`, with the floor rule max(F, 0) on the
    /// components `pinned` to their floor at the start of the step.
    #[inline]
    fn eval(&self, pos: f64, y: &[f64; D], modes: &[bool], pinned: &[bool; D]) -> [f64; D] {
        let nd = self.m.len();
        let mut delayed = [[0.0; D]; MAX_DELAYS];
        if self.reads_delayed {
            for k in 0..nd {
                delayed[k] = self.at(pos - self.m[k]);
            }
        }
        let mut f = self.sys.rhs(pos * self.dt, y, &delayed[..nd], modes);
        for i in 0..D {
            if pinned[i] && f[i] < 0.0 {
                f[i] = 0.0;
            }
        }
        f
    }

    /// Indicator values for a (sub)step centred at grid position `mid`.
    #[inline]
    fn modes(&self, mid: f64) -> [bool; MAX_SWITCHES] {
        let mut u = [false; MAX_SWITCHES];
        for (j, s) in self.switches.iter().enumerate() {
            u[j] = self.at(mid - self.m[s.delay])[s.component] > s.threshold;
        }
        u
    }

    /// Fractions in (0, 1) of step `n` at which a delayed indicator switches or a delayed
    /// state's derivative jumps ([`Self::breaks`]; `next_break` is the first not yet passed),
    /// sorted.
    fn cut_points(&self, n: usize, next_break: &mut usize, out: &mut [f64; MAX_SWITCHES + MAX_BREAKS]) -> usize {
        let mut k = self.switch_points(n, out);
        let nf = n as f64;
        while let Some(&b) = self.breaks.get(*next_break) {
            if b >= nf + 1.0 {
                break;
            }
            let theta = b - nf;
            if theta > 1e-12 && theta < 1.0 - 1e-12 && out[..k].iter().all(|&c| (c - theta).abs() > 1e-12) {
                out[k] = theta;
                k += 1;
            }
            *next_break += 1;
        }
        out[..k].sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        k
    }

    /// Fractions in (0, 1) of step `n` at which a delayed indicator switches (unsorted: for
    /// [`Self::cut_points`]).
    fn switch_points(&self, n: usize, out: &mut [f64]) -> usize {
        let mut k = 0;
        for s in &self.switches {
            let p0 = n as f64 - self.m[s.delay];
            let v = |theta: f64| self.at(p0 + theta)[s.component] > s.threshold;
            let (u0, u1) = (v(0.0), v(1.0));
            if u0 == u1 {
                continue;
            }
            let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if v(mid) == u0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let theta = 0.5 * (lo + hi);
            if theta > 1e-12 && theta < 1.0 - 1e-12 {
                out[k] = theta;
                k += 1;
            }
        }
        k
    }

    /// One RK4 sub-step from grid position `a` (steps) over `hs` steps; returns (y_new, f at start).
    #[inline]
    fn rk4(&self, a: f64, hs: f64, y: &[f64; D], modes: &[bool]) -> ([f64; D], [f64; D]) {
        let h = hs * self.dt;
        let pinned: [bool; D] = std::array::from_fn(|i| y[i] <= self.floors[i]);
        let k1 = self.eval(a, y, modes, &pinned);
        let mut y2 = [0.0; D];
        for i in 0..D {
            y2[i] = y[i] + 0.5 * h * k1[i];
        }
        self.project(&mut y2);
        let k2 = self.eval(a + 0.5 * hs, &y2, modes, &pinned);
        let mut y3 = [0.0; D];
        for i in 0..D {
            y3[i] = y[i] + 0.5 * h * k2[i];
        }
        self.project(&mut y3);
        let k3 = self.eval(a + 0.5 * hs, &y3, modes, &pinned);
        let mut y4 = [0.0; D];
        for i in 0..D {
            y4[i] = y[i] + h * k3[i];
        }
        self.project(&mut y4);
        let k4 = self.eval(a + hs, &y4, modes, &pinned);
        let mut out = [0.0; D];
        for i in 0..D {
            out[i] = y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        self.project(&mut out);
        (out, k1)
    }
}

/// Integrate one system over `[0, opts.t_end]`.
pub fn integrate<const D: usize, S: DdeSystem<D>>(sys: &S, opts: &Options) -> Result<Trajectory<D>, FluidError> {
    integrate_until(sys, opts, &AtomicBool::new(false))
}

/// Steps between two looks at the `cancel` flag of [`integrate_until`] (a relaxed load: ~0.1 %
/// of a step's cost at this spacing).
const CANCEL_CHECK_STEPS: usize = 1024;

/// [`integrate`], stopping with [`FluidError::Interrupted`] within [`CANCEL_CHECK_STEPS`] steps
/// of `cancel` being set (the Python binding sets it on Ctrl-C: a 7.5 s run had ended only when
/// it was done, and then panicked in NumPy's import with the interrupt pending).
pub fn integrate_until<const D: usize, S: DdeSystem<D>>(
    sys: &S,
    opts: &Options,
    cancel: &AtomicBool,
) -> Result<Trajectory<D>, FluidError> {
    let delays = sys.delays();
    if delays.is_empty() || delays.len() > MAX_DELAYS {
        return Err(FluidError::InvalidParameter {
            name: "delays".into(),
            value: delays.len() as f64,
            range: format!("between 1 and {MAX_DELAYS} delays"),
        });
    }
    let switches = sys.switches().to_vec();
    if switches.len() > MAX_SWITCHES || switches.iter().any(|s| s.delay >= delays.len() || s.component >= D) {
        return Err(FluidError::InvalidParameter {
            name: "switches".into(),
            value: switches.len() as f64,
            range: format!("at most {MAX_SWITCHES}, each naming a declared delay and a state component"),
        });
    }
    let observables = sys.observables();
    if observables.len() > MAX_OBSERVABLES {
        return Err(FluidError::InvalidParameter {
            name: "observables".into(),
            value: observables.len() as f64,
            range: format!("at most {MAX_OBSERVABLES}"),
        });
    }
    let (n_steps, stride, n_from) = opts.grid(delays)?;
    let dt = opts.dt;
    let m: Vec<f64> = delays
        .iter()
        .map(|&tau| {
            let m = tau / dt;
            if (m - m.round()).abs() <= 1e-9 * m {
                m.round()
            } else {
                m
            }
        })
        .collect();
    let max_m = m.iter().cloned().fold(0.0, f64::max);
    let reads_delayed = sys.reads_delayed_state();
    let mut breaks: Vec<f64> = Vec::new();
    if reads_delayed {
        for (i, &mi) in m.iter().enumerate() {
            breaks.push(mi);
            breaks.extend(m[i..].iter().map(|&mj| mi + mj));
        }
        breaks.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        breaks.dedup();
    }
    check(
        "dt",
        dt,
        max_m <= MAX_DELAY_STEPS,
        &format!("large enough that the longest delay is at most {MAX_DELAY_STEPS:e} steps (memory)"),
    )?;
    // The ring holds the longest delay's history, or the whole run when it is shorter: a 1 ns
    // run with a 100 us delay at dt = 3.6 ps allocated 2.4 GB for 281 steps (a probe).
    let cap = (max_m.ceil() as usize + 3).min(n_steps + 2);
    let y0 = sys.history(0.0);
    let names = sys.names();
    for i in 0..D {
        if !y0[i].is_finite() {
            return Err(FluidError::InvalidParameter {
                name: format!("init.{}", names[i]),
                value: y0[i],
                range: "a finite number".into(),
            });
        }
    }
    let mut st = Stepper {
        sys,
        dt,
        m,
        switches,
        floors: sys.floors(),
        reads_delayed,
        ring: Ring { y: vec![[f64::NAN; D]; cap], f: vec![[f64::NAN; D]; cap], cap },
        breaks,
    };
    let mut y = y0;
    st.project(&mut y);
    st.ring.y[0] = y;

    let n_samples = if n_from > n_steps { 0 } else { (n_steps - n_from) / stride + 1 };
    let mut out = Trajectory {
        t: Vec::with_capacity(n_samples),
        y: std::array::from_fn(|_| Vec::with_capacity(n_samples)),
        stats: None,
        envelope: None,
    };
    let mut env = opts.envelope.then(|| EnvelopeAcc::<D>::new(n_samples));
    // The first grid point at or after stats_from, and the last at or after stats_to (within 1e-9
    // relative of a grid point: on it), never past the run's last.
    let grid_at_or_after = |t: f64| {
        let x = t / dt;
        let n = if (x - x.round()).abs() <= 1e-9 * x.max(1.0) { x.round() } else { x.ceil() };
        (n.max(0.0) as usize).min(n_steps)
    };
    let mut acc = opts.stats_from.map(|from| {
        let to = opts.stats_to.map_or(n_steps, grid_at_or_after);
        StatsAcc::<D>::new(grid_at_or_after(from), to, observables.len())
    });
    let record = |n: usize, y: &[f64; D], out: &mut Trajectory<D>, env: &mut Option<EnvelopeAcc<D>>| {
        if n < n_from {
            return;
        }
        let row = (n - n_from).is_multiple_of(stride);
        if row {
            out.t.push(n as f64 * dt);
            for i in 0..D {
                out.y[i].push(y[i]);
            }
        }
        if let Some(e) = env.as_mut() {
            e.add(y, row);
        }
    };
    record(0, &y, &mut out, &mut env);
    if let Some(a) = acc.as_mut() {
        a.add(sys, 0, &y);
    }

    let mut cuts = [0.0; MAX_SWITCHES + MAX_BREAKS];
    let mut next_break = 0;
    for n in 0..n_steps {
        if n % CANCEL_CHECK_STEPS == 0 && cancel.load(Ordering::Relaxed) {
            return Err(FluidError::Interrupted { t: n as f64 * dt });
        }
        let nf = n as f64;
        let k = st.cut_points(n, &mut next_break, &mut cuts);
        let mut a = 0.0;
        let mut yy = y;
        for s in 0..=k {
            let b = if s < k { cuts[s] } else { 1.0 };
            let modes = st.modes(nf + 0.5 * (a + b));
            let (y_next, f_start) = st.rk4(nf + a, b - a, &yy, &modes[..st.switches.len()]);
            if s == 0 {
                st.ring.f[n % cap] = f_start;
            }
            yy = y_next;
            a = b;
        }
        y = yy;
        for i in 0..D {
            if !y[i].is_finite() {
                return Err(FluidError::Diverged { t: (n + 1) as f64 * dt, component: names[i], value: y[i], dt });
            }
        }
        st.ring.y[(n + 1) % cap] = y;
        st.ring.f[(n + 1) % cap] = [f64::NAN; D];
        record(n + 1, &y, &mut out, &mut env);
        if let Some(a) = acc.as_mut() {
            a.add(sys, n + 1, &y);
        }
    }
    if let Some(a) = acc {
        let names = names.iter().chain(observables.iter()).copied().collect();
        out.stats = Some(a.finish(names, dt));
    }
    out.envelope = env.map(|e| e.out);
    Ok(out)
}

/// Integrate many systems with the same options in parallel; results in input order.
pub fn integrate_batch<const D: usize, S: DdeSystem<D> + Send>(
    systems: &[S],
    opts: &Options,
) -> Vec<Result<Trajectory<D>, FluidError>> {
    map_in_own_pool(systems.len(), |i| integrate(&systems[i], opts))
}

/// Integrate many systems, each with its own options, in parallel; results in input order.
pub fn integrate_batch_with<const D: usize, S: DdeSystem<D> + Send>(
    systems: &[S],
    opts: &[Options],
) -> Vec<Result<Trajectory<D>, FluidError>> {
    integrate_batch_until(systems, opts, &AtomicBool::new(false))
}

/// [`integrate_batch_with`], each run stopping as [`integrate_until`] does once `cancel` is set.
pub fn integrate_batch_until<const D: usize, S: DdeSystem<D> + Send>(
    systems: &[S],
    opts: &[Options],
    cancel: &AtomicBool,
) -> Vec<Result<Trajectory<D>, FluidError>> {
    map_in_own_pool(systems.len().min(opts.len()), |i| integrate_until(&systems[i], &opts[i], cancel))
}

/// `f(0), ..., f(jobs - 1)`, in that order, computed on a rayon pool started for this call, not
/// on rayon's global pool: a process forked after the global pool started (Python's
/// `multiprocessing` with "fork", a sweep's workers) inherits the pool but none of its threads,
/// and its first parallel batch would wait for them forever. Starting a pool costs ~0.1 ms per
/// thread, little against an integration. Threads: one per job, at most `RAYON_NUM_THREADS` (as
/// rayon's own pool) or else the cores. With one thread, or none to be had, the jobs run one after
/// the other on this thread: the same results (each is deterministic and independent of the
/// others), only slower.
fn map_in_own_pool<T: Send>(jobs: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = std::env::var("RAYON_NUM_THREADS").ok().and_then(|v| v.parse().ok()).filter(|&n: &usize| n > 0);
    let threads = most.unwrap_or(cores).min(jobs);
    if threads > 1 {
        if let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            return pool.install(|| (0..jobs).into_par_iter().map(&f).collect());
        }
    }
    (0..jobs).map(f).collect()
}
