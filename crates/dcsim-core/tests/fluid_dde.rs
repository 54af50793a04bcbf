//! The DDE integrator against closed-form solutions: accuracy, order of convergence (RK4: 4),
//! exact location of delayed switching times, floors, determinism, input errors.

use dcsim_core::fluid::dde::{integrate, integrate_batch, DdeSystem, Options, Switch};
use dcsim_core::fluid::FluidError;

/// y'(t) = -y(t - 1), y = 1 on [-1, 0] ([`NegDelayTau`] at tau = 1).
const NEG_DELAY: NegDelayTau = NegDelayTau { tau: [1.0] };

/// Method of steps: y(t) = sum_{k=0}^{floor(t)+1} (-1)^k (t - k + 1)^k / k! for t >= 0.
fn neg_delay_exact(t: f64) -> f64 {
    neg_delay_tau_exact(t, 1.0)
}

/// y'(t) = a y(t - tau) with history e^{lambda t} and a = lambda e^{lambda tau}: the exact solution is
/// e^{lambda t} for all t (no derivative jumps), so a delay off the grid tests the Hermite history.
struct SmoothExp {
    lambda: f64,
    tau: [f64; 1],
}
impl DdeSystem<1> for SmoothExp {
    fn names(&self) -> [&'static str; 1] {
        ["y"]
    }
    fn delays(&self) -> &[f64] {
        &self.tau
    }
    fn history(&self, t: f64) -> [f64; 1] {
        [(self.lambda * t).exp()]
    }
    fn rhs(&self, _t: f64, _y: &[f64; 1], d: &[[f64; 1]], _m: &[bool]) -> [f64; 1] {
        [self.lambda * (self.lambda * self.tau[0]).exp() * d[0][0]]
    }
}

/// x' = 1 (x = t + x0), y' = -y · 1{x(t - tau) > c}: y = 1 until t* = tau + c - x0, then e^{-(t - t*)}.
/// The switch time is generally not on the grid.
struct DelayedSwitch {
    tau: [f64; 1],
    sw: [Switch; 1],
    x0: f64,
}
impl DdeSystem<2> for DelayedSwitch {
    fn names(&self) -> [&'static str; 2] {
        ["x", "y"]
    }
    fn delays(&self) -> &[f64] {
        &self.tau
    }
    fn switches(&self) -> &[Switch] {
        &self.sw
    }
    fn history(&self, t: f64) -> [f64; 2] {
        [self.x0 + t, 1.0]
    }
    fn rhs(&self, _t: f64, y: &[f64; 2], _d: &[[f64; 2]], m: &[bool]) -> [f64; 2] {
        [1.0, if m[0] { -y[1] } else { 0.0 }]
    }
}
fn delayed_switch(c: f64) -> DelayedSwitch {
    DelayedSwitch { tau: [0.75], sw: [Switch { delay: 0, component: 0, threshold: c }], x0: 0.0 }
}

/// y' = -1 with floor y >= 0: y = max(1 - t, 0).
struct Drain;
impl DdeSystem<1> for Drain {
    fn names(&self) -> [&'static str; 1] {
        ["y"]
    }
    fn delays(&self) -> &[f64] {
        &[0.5]
    }
    fn floors(&self) -> [f64; 1] {
        [0.0]
    }
    fn history(&self, _t: f64) -> [f64; 1] {
        [1.0]
    }
    fn rhs(&self, _t: f64, _y: &[f64; 1], _d: &[[f64; 1]], _m: &[bool]) -> [f64; 1] {
        [-1.0]
    }
}

fn opts(dt: f64, t_end: f64, sample_dt: f64) -> Options {
    Options::new(dt, t_end, sample_dt, 0.0)
}

fn max_err<const D: usize, S: DdeSystem<D>>(s: &S, dt: f64, t_end: f64, c: usize, exact: impl Fn(f64) -> f64) -> f64 {
    let tr = integrate(s, &opts(dt, t_end, 0.1)).unwrap();
    tr.t.iter().zip(&tr.y[c]).map(|(&t, &y)| (y - exact(t)).abs()).fold(0.0, f64::max)
}

/// Least-squares slope of log(err) against log(dt).
fn order(dts: &[f64], errs: &[f64]) -> f64 {
    let xs: Vec<f64> = dts.iter().map(|d| d.ln()).collect();
    let ys: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

#[test]
fn neg_delay_matches_method_of_steps_closed_form() {
    // Sanity of the closed form itself: y(1) = 0, y(2) = -1/2, y(3) = -1/2 - ... (direct sums).
    assert!((neg_delay_exact(1.0) - 0.0).abs() < 1e-15);
    assert!((neg_delay_exact(2.0) - (1.0 - 2.0 + 0.5)).abs() < 1e-15);
    let e = max_err(&NEG_DELAY, 1e-2, 10.0, 0, neg_delay_exact);
    assert!(e < 1e-9, "max error {e}");
}

#[test]
fn rk4_order_four_on_grid_aligned_delay() {
    let dts = [0.1, 0.05, 0.025, 0.0125];
    let errs: Vec<f64> = dts.iter().map(|&dt| max_err(&NEG_DELAY, dt, 8.0, 0, neg_delay_exact)).collect();
    let p = order(&dts, &errs);
    println!("y'=-y(t-1): errors {errs:?}, order {p:.3}");
    assert!((p - 4.0).abs() < 0.3, "fitted order {p}, errors {errs:?}");
}

#[test]
fn rk4_order_four_with_hermite_history_off_grid() {
    let s = SmoothExp { lambda: -0.5, tau: [0.7312] };
    let dts = [0.1, 0.05, 0.025, 0.0125];
    let errs: Vec<f64> = dts.iter().map(|&dt| max_err(&s, dt, 10.0, 0, |t| (-0.5 * t).exp())).collect();
    let p = order(&dts, &errs);
    println!("smooth exp, tau off grid: errors {errs:?}, order {p:.3}");
    assert!((p - 4.0).abs() < 0.4, "fitted order {p}, errors {errs:?}");
}

/// y'(t) = -y(t - tau), y = 1 on [-tau, 0]: the history joins the solution with a jump in y' at 0,
/// carried to a kink of y(t - tau) at tau and a jump of its second derivative at 2 tau.
struct NegDelayTau {
    tau: [f64; 1],
}
impl DdeSystem<1> for NegDelayTau {
    fn names(&self) -> [&'static str; 1] {
        ["y"]
    }
    fn delays(&self) -> &[f64] {
        &self.tau
    }
    fn history(&self, _t: f64) -> [f64; 1] {
        [1.0]
    }
    fn rhs(&self, _t: f64, _y: &[f64; 1], d: &[[f64; 1]], _m: &[bool]) -> [f64; 1] {
        [-d[0][0]]
    }
}

/// Method of steps: y(t) = sum_{k=0}^{floor(t/tau)+1} (-1)^k (t - (k-1) tau)^k / k! over the
/// terms with t >= (k-1) tau ([`neg_delay_exact`] at tau = 1).
fn neg_delay_tau_exact(t: f64, tau: f64) -> f64 {
    let mut s = 0.0;
    let mut fact = 1.0;
    for k in 0..=((t / tau).floor() as i32 + 1) {
        if k > 0 {
            fact *= k as f64;
        }
        let x = t - (k as f64 - 1.0) * tau;
        if x >= 0.0 {
            s += (-1f64).powi(k) * x.powi(k) / fact;
        }
    }
    s
}

#[test]
fn a_history_that_joins_with_a_kink_off_the_grid_keeps_order_three() {
    // tau = 0.7312, never a whole number of the steps below. Unsplit, the step that holds t = tau
    // took the kink of y(t - tau) into its RK4 stages: global order 2 (a review measured 1.98 on
    // the DX model). Split there and at 2 tau, what is left is the Hermite history across the jump
    // of y'' at tau (not a grid point): O(dt^2) over one step's reads, an error O(dt^3) at worst
    // (its constant depends on where tau falls in its grid interval, so the fitted order scatters
    // above 3: 3.46 here). Decided before measuring: at least 3 - 0.4, as the order-4 tests allow
    // 0.3-0.4 (unsplit: 2).
    let tau = 0.7312;
    let s = NegDelayTau { tau: [tau] };
    let exact = |t: f64| neg_delay_tau_exact(t, tau);
    assert!((exact(tau) - (1.0 - tau)).abs() < 1e-15); // y = 1 - t on [0, tau]
    let dts = [0.02, 0.01, 0.005, 0.0025];
    let errs: Vec<f64> = dts.iter().map(|&dt| max_err(&s, dt, 6.0, 0, exact)).collect();
    let p = order(&dts, &errs);
    println!("y'=-y(t-tau), tau off grid: errors {errs:?}, order {p:.3}");
    assert!(p > 2.6, "fitted order {p}, errors {errs:?}");
}

#[test]
fn delayed_switch_time_located_exactly() {
    // Switch at t* = 0.75 + 0.3137 = 1.0637, off every grid below.
    let c = 0.3137;
    let ts = 0.75 + c;
    let exact = |t: f64| if t <= ts { 1.0 } else { (-(t - ts)).exp() };
    let dts = [0.1, 0.05, 0.025, 0.0125];
    let errs: Vec<f64> = dts.iter().map(|&dt| max_err(&delayed_switch(c), dt, 4.0, 1, exact)).collect();
    let p = order(&dts, &errs);
    println!("delayed switch: errors {errs:?}, order {p:.3}");
    // Without locating the switch the error would be O(dt) (~1e-2 at dt = 0.05).
    assert!(errs[1] < 1e-6, "errors {errs:?}");
    assert!(p > 3.5, "fitted order {p}, errors {errs:?}");
}

#[test]
fn floor_holds_with_max_rule() {
    let tr = integrate(&Drain, &opts(0.01, 3.0, 0.01)).unwrap();
    for (&t, &y) in tr.t.iter().zip(&tr.y[0]) {
        assert!(y >= 0.0);
        assert!((y - (1.0 - t).max(0.0)).abs() < 1e-9, "t={t} y={y}");
    }
}

#[test]
fn deterministic_and_batch_equals_serial() {
    let systems: Vec<SmoothExp> =
        (0..8).map(|i| SmoothExp { lambda: -0.1 * (i + 1) as f64, tau: [0.5 + 0.1 * i as f64] }).collect();
    let o = opts(0.01, 5.0, 0.05);
    let batch = integrate_batch(&systems, &o);
    for (s, b) in systems.iter().zip(&batch) {
        let a = integrate(s, &o).unwrap();
        let b = b.as_ref().unwrap();
        assert_eq!(a.t.len(), 101);
        // bit-identical
        assert!(a.y[0].iter().zip(&b.y[0]).all(|(x, y)| x.to_bits() == y.to_bits()));
    }
}

#[test]
fn sampling_grid_and_t_from() {
    let o = Options::new(1e-3, 2.0, 1e-2, 0.5);
    let tr = integrate(&NEG_DELAY, &o).unwrap();
    assert_eq!(tr.t.len(), 151);
    assert!((tr.t[0] - 0.5).abs() < 1e-12 && (tr.t[150] - 2.0).abs() < 1e-12);
}

#[test]
fn bad_options_are_errors_naming_the_field() {
    let cases = [
        (opts(0.0, 1.0, 0.1), "dt"),
        (opts(0.6, 1.0, 0.6), "delay[0]"), // dt > delay / 2
        (opts(0.01, 1.0, 0.015), "sample_dt"),
        (opts(0.01, -1.0, 0.01), "t_end"),
        (Options::new(0.01, 1.0, 0.01, 2.0), "t_from"),
        (opts(1e-9, 1e-8, 1e-9), "dt"), // delay 1 = 1e9 steps: history would not fit in memory
    ];
    for (o, name) in cases {
        match integrate(&NEG_DELAY, &o) {
            Err(FluidError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("expected error for {name}, got {other:?}"),
        }
    }
}

#[test]
fn grid_stats_of_the_drain_match_its_closed_form() {
    // y = max(1 - t, 0) on [0, 3]; from t = 0.5 at dt = 0.01: the points t = 0.50 .. 3.00 (251),
    // y = 0.5 .. 0.01 then 0 (101 points t >= 1 are 0): sum = (0.5 + 0.01) * 50 / 2 = 12.75,
    // mean = 12.75 / 251, min 0, max 0.5 (first principles, exact to rounding).
    let mut o = opts(0.01, 3.0, 0.5);
    o.stats_from = Some(0.5);
    let st = integrate(&Drain, &o).unwrap().stats.expect("stats asked for");
    assert_eq!(st.points, 251);
    assert!((st.from - 0.5).abs() < 1e-12, "from {}", st.from);
    assert!((st.mean[0] - 12.75 / 251.0).abs() < 1e-12, "mean {}", st.mean[0]);
    assert_eq!(st.min[0], 0.0);
    assert!((st.max[0] - 0.5).abs() < 1e-12, "max {}", st.max[0]); // 50 steps of -0.01 from 1
    assert_eq!(st.names, vec!["y"]);
}

#[test]
fn grid_stats_do_not_depend_on_the_output_sampling() {
    // The statistics see every step, so a coarse output grid changes nothing, bit for bit; and
    // at stride 1 they equal the statistics of the output itself.
    let s = SmoothExp { lambda: -0.3, tau: [0.7312] };
    let mut fine = opts(1e-3, 4.0, 1e-3);
    fine.stats_from = Some(1.0);
    let mut coarse = fine;
    coarse.sample_dt = 0.5;
    let a = integrate(&s, &fine).unwrap();
    let b = integrate(&s, &coarse).unwrap();
    assert_eq!(a.stats, b.stats);
    let st = a.stats.unwrap();
    let tail: Vec<f64> = a.t.iter().zip(&a.y[0]).filter(|(t, _)| **t >= 1.0 - 1e-12).map(|(_, y)| *y).collect();
    assert_eq!(st.points as usize, tail.len());
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!((st.mean[0] - mean).abs() < 1e-13 * mean.abs(), "{} vs {mean}", st.mean[0]);
    assert_eq!(st.min[0], tail.iter().cloned().fold(f64::INFINITY, f64::min));
    assert_eq!(st.max[0], tail.iter().cloned().fold(f64::NEG_INFINITY, f64::max));
}

#[test]
fn grid_stats_window_out_of_range_is_an_error() {
    let mut o = opts(0.01, 1.0, 0.01);
    o.stats_from = Some(1.5);
    match integrate(&NEG_DELAY, &o) {
        Err(FluidError::InvalidParameter { name, .. }) => assert_eq!(name, "stats_from"),
        other => panic!("expected a stats_from error, got {other:?}"),
    }
}

#[test]
fn the_envelope_of_each_row_is_the_extremes_since_the_row_before() {
    // Computed again from a run that outputs every step (the same steps, bit for bit).
    let s = SmoothExp { lambda: -0.3, tau: [0.7312] };
    let mut every = opts(1e-3, 2.0, 1e-3);
    every.t_from = 0.25;
    let mut coarse = every;
    coarse.sample_dt = 0.05; // 50 steps a row
    coarse.envelope = true;
    let a = integrate(&s, &every).unwrap();
    let b = integrate(&s, &coarse).unwrap();
    let env = b.envelope.as_ref().expect("asked for");
    assert!(a.envelope.is_none());
    assert_eq!(env.lo[0].len(), b.t.len());
    assert_eq!((env.lo[0][0], env.hi[0][0]), (b.y[0][0], b.y[0][0])); // the first row: its own point
    for i in 1..b.t.len() {
        let (from, to) = (50 * (i - 1) + 1, 50 * i); // rows of `a` after row i - 1 of `b`, up to row i
        assert_eq!(a.t[to].to_bits(), b.t[i].to_bits());
        let w = &a.y[0][from..=to];
        assert_eq!(env.lo[0][i], w.iter().cloned().fold(f64::INFINITY, f64::min), "row {i}");
        assert_eq!(env.hi[0][i], w.iter().cloned().fold(f64::NEG_INFINITY, f64::max), "row {i}");
    }
}

#[test]
fn grid_stats_end_at_stats_to_and_the_mean_stays_within_the_extremes() {
    // The drain y = max(1 - t, 0) over t = 0.50 .. 1.00 (51 points): sum 12.75 (the last point is 0).
    let mut o = opts(0.01, 3.0, 0.5);
    o.stats_from = Some(0.5);
    o.stats_to = Some(1.0);
    let st = integrate(&Drain, &o).unwrap().stats.unwrap();
    assert_eq!(st.points, 51);
    assert!((st.to - 1.0).abs() < 1e-12 && (st.mean[0] - 12.75 / 51.0).abs() < 1e-12, "{st:?}");
    // On the floor from t = 1 on: a constant 0, whose mean must be exactly 0, not an ulp off.
    o.stats_from = Some(1.5);
    o.stats_to = None;
    let st = integrate(&Drain, &o).unwrap().stats.unwrap();
    assert_eq!((st.min[0], st.mean[0], st.max[0]), (0.0, 0.0, 0.0));
    assert!(st.min.iter().zip(&st.mean).zip(&st.max).all(|((lo, m), hi)| lo <= m && m <= hi));
    o.stats_to = Some(1.0); // before stats_from
    assert!(matches!(integrate(&Drain, &o), Err(FluidError::InvalidParameter { name, .. }) if name == "stats_to"));
}

#[test]
fn a_run_stops_once_its_cancel_flag_is_set_and_an_unset_flag_changes_nothing() {
    use dcsim_core::fluid::dde::{integrate_batch_until, integrate_until};
    use std::sync::atomic::{AtomicBool, Ordering};

    let o = Options::new(1e-3, 20_000.0, 1.0, 0.0); // 2 x 10^7 steps, ~1 s
                                                    // Set before the run: it stops at its first look, at t = 0.
    let set = AtomicBool::new(true);
    match integrate_until(&NEG_DELAY, &o, &set) {
        Err(FluidError::Interrupted { t }) => assert_eq!(t, 0.0),
        other => panic!("expected an interruption, got {:?}", other.map(|tr| tr.t.len())),
    }
    // Set by another thread while it runs: it stops before its end, within 1 024 steps of a look.
    let flag = AtomicBool::new(false);
    let stopped = std::thread::scope(|s| {
        let run = s.spawn(|| integrate_until(&NEG_DELAY, &o, &flag));
        std::thread::sleep(std::time::Duration::from_millis(20));
        flag.store(true, Ordering::Relaxed);
        run.join().unwrap()
    });
    match stopped {
        Err(FluidError::Interrupted { t }) => assert!(t > 0.0 && t < 20_000.0, "{t}"),
        other => panic!("expected an interruption, got {:?}", other.map(|tr| tr.t.len())),
    }
    // Unset: the same trajectory as without a flag, every run of a batch too.
    let short = Options::new(1e-2, 5.0, 0.5, 0.0);
    let free = AtomicBool::new(false);
    assert_eq!(integrate_until(&NEG_DELAY, &short, &free).unwrap().y, integrate(&NEG_DELAY, &short).unwrap().y);
    let batch = integrate_batch_until(&[NEG_DELAY, NEG_DELAY], &[short, short], &set);
    assert!(batch.iter().all(|r| matches!(r, Err(FluidError::Interrupted { .. }))));
}
