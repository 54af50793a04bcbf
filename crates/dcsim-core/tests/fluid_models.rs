//! The papers' fluid models in the Rust core: fixed points the equations imply, floors, errors.

use dcsim_core::fluid::dde::{integrate, Options};
use dcsim_core::fluid::{Dctcp, DctcpNormalized, Dx, FluidError};

const C_PPS: f64 = 10e9 / (8.0 * 1500.0);

#[test]
fn dctcp_fig2_n100_reaches_fixed_point_2n_minus_cd() {
    // Section 3.1: wbar = (Cd + K)/N = 1.48 <= 2, fixed point (W, alpha, q) = (2, 1, 2N - Cd).
    let m = Dctcp::new(C_PPS, 100e-6, 65.0, 1.0 / 16.0, 100.0, true, None).unwrap();
    let r = m.r_star();
    let tr = integrate(&m, &Options::new(r / 200.0, 0.05, r / 10.0, 0.0)).unwrap();
    let n = tr.t.len() - 1;
    assert!((tr.y[2][n] - (200.0 - C_PPS * 100e-6)).abs() < 0.05, "q = {}", tr.y[2][n]);
    assert!((tr.y[0][n] - 2.0).abs() < 1e-3 && (tr.y[1][n] - 1.0).abs() < 1e-3);
}

#[test]
fn psi_floor_is_never_crossed() {
    let psi = 0.02;
    let m = DctcpNormalized::new(14.0, 0.05, Some(psi), None).unwrap();
    let tr = integrate(&m, &Options::new(1e-3, 100.0, 1e-3, 0.0)).unwrap();
    let floor = -psi / (1.0 + psi);
    assert!(tr.y[2].iter().all(|&q| q >= floor));
    assert!(tr.y[2].contains(&floor));
}

/// The DX equilibrium (W0 packets, Q0 s) of eqs. (5)-(8) with seg = 1 packet, C = C_PPS.
fn dx_equilibrium(n: f64, r0: f64, p: f64) -> (f64, f64) {
    let delta = (C_PPS * p * r0 - p * n).powi(2) + 4.0 * C_PPS * p * n * r0 * (1.0 - p);
    let q0 = (p * (n - C_PPS * r0) + delta.sqrt()) / (2.0 * C_PPS * p);
    (C_PPS * (r0 + q0) / n, q0)
}

#[test]
fn dx_equilibrium_of_eqs_5_to_8_is_a_fixed_point() {
    let (n, r0, p) = (50.0, 80e-6, 0.95);
    let (w0, q0) = dx_equilibrium(n, r0, p);
    let m = Dx::new(n, C_PPS, r0, r0, p, true, [w0, q0]).unwrap();
    let tr = integrate(&m, &Options::new(r0 / 200.0, 0.01, r0, 0.0)).unwrap();
    assert!(tr.y[0].iter().all(|w| (w / w0 - 1.0).abs() < 1e-10));
    assert!(tr.y[1].iter().all(|q| (q / q0 - 1.0).abs() < 1e-10));
}

#[test]
fn invalid_parameters_are_errors_not_panics() {
    let e = DctcpNormalized::new(-1.0, 0.1, None, None).unwrap_err();
    assert!(matches!(&e, FluidError::InvalidParameter { name, .. } if name == "wbar"), "{e}");
    assert!(e.to_string().contains("wbar = -1"));
    assert!(Dctcp::new(C_PPS, 100e-6, 65.0, 0.0, 2.0, true, None).is_err());
    assert!(Dx::new(10.0, C_PPS, 80e-6, 80e-6, 0.95, true, [0.5, 0.0]).is_err());
    let e = e.in_run(3);
    assert!(e.to_string().starts_with("wbar[3] = -1"));
}

#[test]
fn dctcp_observables_at_every_step_are_eq_8_and_the_busy_link() {
    // Fig. 2 setting, N = 2 (a limit cycle); output at every step, so the observables' grid
    // statistics must equal those computed from the output rows: p = 1{q > K} (eq. 8), and the
    // utilization 1 while q > 0, else N W / (R C) capped at 1.
    let m = Dctcp::new(C_PPS, 100e-6, 65.0, 1.0 / 16.0, 2.0, true, None).unwrap();
    let r = m.r_star();
    let mut o = Options::new(r / 200.0, 0.02, r / 200.0, 0.0);
    o.stats_from = Some(0.01);
    let tr = integrate(&m, &o).unwrap();
    let st = tr.stats.as_ref().unwrap();
    assert_eq!(st.names, vec!["W", "alpha", "q", "p", "utilization"]);
    let rows: Vec<usize> = (0..tr.t.len()).filter(|&i| tr.t[i] >= st.from - 1e-15).collect();
    assert_eq!(rows.len() as u64, st.points);
    let n = rows.len() as f64;
    let p = rows.iter().filter(|&&i| tr.y[2][i] > 65.0).count() as f64 / n;
    let util = rows
        .iter()
        .map(|&i| {
            let (w, q) = (tr.y[0][i], tr.y[2][i]);
            if q > 0.0 {
                1.0
            } else {
                (2.0 * w / (100e-6 + q / C_PPS) / C_PPS).min(1.0)
            }
        })
        .sum::<f64>()
        / n;
    assert!((st.mean[3] - p).abs() < 1e-12 && p > 0.0 && p < 1.0, "p {} vs {p}", st.mean[3]);
    assert!((st.mean[4] - util).abs() < 1e-12, "utilization {} vs {util}", st.mean[4]);
    assert!(st.min[3] == 0.0 && st.max[3] == 1.0);
}

#[test]
fn dx_at_its_fixed_point_is_always_busy() {
    // At the equilibrium (5)-(8) Q0 > 0 for p < 1: Q > 0 at every step, so busy = 1 exactly, and
    // the window's mean is W0.
    let (n, r0, p) = (50.0, 80e-6, 0.95);
    let (w0, q0) = dx_equilibrium(n, r0, p);
    let m = Dx::new(n, C_PPS, r0, r0, p, true, [w0, q0]).unwrap();
    let mut o = Options::new(r0 / 200.0, 0.01, r0, 0.0);
    o.stats_from = Some(0.005);
    let st = integrate(&m, &o).unwrap().stats.unwrap();
    assert_eq!(st.names, vec!["W", "Q", "busy"]);
    assert_eq!((st.min[2], st.mean[2], st.max[2]), (1.0, 1.0, 1.0));
    assert!((st.mean[0] / w0 - 1.0).abs() < 1e-10);
}
