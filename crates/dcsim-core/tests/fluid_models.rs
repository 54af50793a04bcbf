//! The papers' fluid models in the Rust core: fixed points the equations imply, floors, errors.

use dcsim_core::fluid::dde::{integrate, Options};
use dcsim_core::fluid::{Dctcp, DctcpNormalized, Dx, FluidError};

const C_PPS: f64 = 10e9 / (8.0 * 1500.0);

#[test]
fn dctcp_fig2_n100_reaches_fixed_point_2n_minus_cd() {
    // Section 3.1: wbar = (Cd + K)/N = 1.48 <= 2, fixed point (W, alpha, q) = (2, 1, 2N - Cd).
    let m = Dctcp::new(C_PPS, 100e-6, 65.0, 1.0 / 16.0, 100.0, true, None).unwrap();
    let r = m.r_star();
    let tr = integrate(&m, &Options { dt: r / 200.0, t_end: 0.05, sample_dt: r / 10.0, t_from: 0.0 }).unwrap();
    let n = tr.t.len() - 1;
    assert!((tr.y[2][n] - (200.0 - C_PPS * 100e-6)).abs() < 0.05, "q = {}", tr.y[2][n]);
    assert!((tr.y[0][n] - 2.0).abs() < 1e-3 && (tr.y[1][n] - 1.0).abs() < 1e-3);
}

#[test]
fn psi_floor_is_never_crossed() {
    let psi = 0.02;
    let m = DctcpNormalized::new(14.0, 0.05, Some(psi), None).unwrap();
    let tr = integrate(&m, &Options { dt: 1e-3, t_end: 100.0, sample_dt: 1e-3, t_from: 0.0 }).unwrap();
    let floor = -psi / (1.0 + psi);
    assert!(tr.y[2].iter().all(|&q| q >= floor));
    assert!(tr.y[2].contains(&floor));
}

#[test]
fn dx_equilibrium_of_eqs_5_to_8_is_a_fixed_point() {
    let (n, r0, p) = (50.0, 80e-6, 0.95);
    let delta = (C_PPS * p * r0 - p * n).powi(2) + 4.0 * C_PPS * p * n * r0 * (1.0 - p);
    let q0 = (p * (n - C_PPS * r0) + delta.sqrt()) / (2.0 * C_PPS * p);
    let w0 = C_PPS * (r0 + q0) / n;
    let m = Dx::new(n, C_PPS, r0, r0, p, true, [w0, q0]).unwrap();
    let tr = integrate(&m, &Options { dt: r0 / 200.0, t_end: 0.01, sample_dt: r0, t_from: 0.0 }).unwrap();
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
