//! Python face of the fluid models (see dcsim_core::fluid), as `dcsim._core.fluid_*`. Each function returns a dict of
//! numpy arrays (`t` and one array per state component); batch functions return a list of such
//! dicts in input order. A run asked for statistics at full resolution (`stats_from`) also has the key
//! `stats`: {"from": first grid time, "to": last grid time, "points": grid points, name: {"min", "mean", "max"}} for each
//! state component and observable; one asked for its envelope, `NAME_lo` and `NAME_hi` per component
//! (the extremes since the row before). The GIL is released while integrating; every error is a ValueError.

use dcsim_core::fluid::dde::{integrate_batch_until, integrate_until, DdeSystem, Envelope, Options, Trajectory};
use dcsim_core::fluid::{Dctcp, DctcpNormalized, Dx, FluidError};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

fn err(e: FluidError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn to_dict<'py, const D: usize>(py: Python<'py>, names: [&str; D], tr: Trajectory<D>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let Trajectory { t, y, stats, envelope } = tr;
    d.set_item("t", PyArray1::from_vec(py, t))?;
    for (name, col) in names.iter().zip(y) {
        d.set_item(*name, PyArray1::from_vec(py, col))?;
    }
    if let Some(Envelope { lo, hi }) = envelope {
        for ((name, lo), hi) in names.iter().zip(lo).zip(hi) {
            d.set_item(format!("{name}_lo"), PyArray1::from_vec(py, lo))?;
            d.set_item(format!("{name}_hi"), PyArray1::from_vec(py, hi))?;
        }
    }
    if let Some(st) = stats {
        let s = PyDict::new(py);
        s.set_item("from", st.from)?;
        s.set_item("to", st.to)?;
        s.set_item("points", st.points)?;
        for (i, name) in st.names.iter().enumerate() {
            let v = PyDict::new(py);
            v.set_item("min", st.min[i])?;
            v.set_item("mean", st.mean[i])?;
            v.set_item("max", st.max[i])?;
            s.set_item(*name, v)?;
        }
        d.set_item("stats", s)?;
    }
    Ok(d)
}

/// How often a running integration lets Python look at its signals (Ctrl-C, SIGTERM).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Run `f` off the GIL on a thread of its own while this thread, every [`SIGNAL_POLL`], lets
/// Python handle its signals: a handler's exception (KeyboardInterrupt) sets the flag `f` stops
/// at ([`integrate_until`]) and is returned once `f` has stopped. A 7.5 s run had seen Ctrl-C only
/// when it was done, and then panicked creating its NumPy arrays with the interrupt pending.
fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce(&AtomicBool) -> T + Send) -> PyResult<T> {
    // NumPy's C API is looked up on first use, and the lookup panics (numpy's crate) if a signal's
    // exception is pending then: made before the run, it is not made after it. (Not at import:
    // `dcsim run` imports NumPy beside the engine, off its critical path.)
    PyArray1::<f64>::zeros(py, 0, false);
    let cancel = AtomicBool::new(false);
    let (out, signal) = py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel();
            let cancel = &cancel;
            scope.spawn(move || {
                let _ = tx.send(crate::no_panic(|| f(cancel)));
            });
            let mut signal: Option<PyErr> = None;
            loop {
                match rx.recv_timeout(SIGNAL_POLL) {
                    Ok(out) => return (out, signal),
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                        if signal.is_none() {
                            if let Err(e) = Python::attach(|py| py.check_signals()) {
                                cancel.store(true, Ordering::Relaxed);
                                signal = Some(e);
                            }
                        }
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                        let e = pyo3::exceptions::PyRuntimeError::new_err(
                            "dcsim internal error: the integration thread ended",
                        );
                        return (Err(e), signal);
                    }
                }
            }
        })
    });
    match signal {
        Some(e) => Err(e),
        None => {
            py.check_signals()?; // one that came as it finished
            out
        }
    }
}

fn opts(dt: f64, t_end: f64, sample_dt: f64, t_from: f64) -> Options {
    Options::new(dt, t_end, sample_dt, t_from)
}

fn run_batch<'py, const D: usize, S: DdeSystem<D> + Send>(
    py: Python<'py>,
    names: [&str; D],
    systems: Vec<S>,
    options: Vec<Options>,
) -> PyResult<Bound<'py, PyList>> {
    let results = interruptible(py, |cancel| integrate_batch_until(&systems, &options, cancel))?;
    let out = PyList::empty(py);
    for (i, r) in results.into_iter().enumerate() {
        out.append(to_dict(py, names, r.map_err(|e| err(e.in_run(i)))?)?)?;
    }
    Ok(out)
}

fn check_len(name: &str, len: usize, n: usize) -> PyResult<()> {
    if len == n {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "{name} has {len} entries; all parameter arrays must have the same length {n}"
        )))
    }
}

/// Normalized DCTCP model (11)-(14); time in units of R*. Keys t, W, alpha, q.
#[pyfunction]
#[pyo3(name = "fluid_dctcp_normalized", signature = (wbar, g, psi, init, t_end, dt, sample_dt, t_from))]
#[allow(clippy::too_many_arguments)]
fn dctcp_normalized<'py>(
    py: Python<'py>,
    wbar: f64,
    g: f64,
    psi: Option<f64>,
    init: Option<[f64; 3]>,
    t_end: f64,
    dt: f64,
    sample_dt: f64,
    t_from: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let sys = DctcpNormalized::new(wbar, g, psi, init).map_err(err)?;
    let o = opts(dt, t_end, sample_dt, t_from);
    let tr = interruptible(py, |cancel| integrate_until(&sys, &o, cancel))?.map_err(err)?;
    to_dict(py, ["W", "alpha", "q"], tr)
}

/// Batch of normalized DCTCP runs (equal-length wbar, g, psi); integrated in parallel.
#[pyfunction]
#[pyo3(name = "fluid_dctcp_normalized_batch", signature = (wbar, g, psi, t_end, dt, sample_dt, t_from))]
#[allow(clippy::too_many_arguments)]
fn dctcp_normalized_batch<'py>(
    py: Python<'py>,
    wbar: Vec<f64>,
    g: Vec<f64>,
    psi: Option<Vec<f64>>,
    t_end: f64,
    dt: f64,
    sample_dt: f64,
    t_from: f64,
) -> PyResult<Bound<'py, PyList>> {
    let n = wbar.len();
    check_len("g", g.len(), n)?;
    if let Some(p) = &psi {
        check_len("psi", p.len(), n)?;
    }
    let systems = (0..n)
        .map(|i| DctcpNormalized::new(wbar[i], g[i], psi.as_ref().map(|p| p[i]), None).map_err(|e| err(e.in_run(i))))
        .collect::<PyResult<Vec<_>>>()?;
    let o = opts(dt, t_end, sample_dt, t_from);
    run_batch(py, ["W", "alpha", "q"], systems, vec![o; n])
}

/// DCTCP model (5)-(8) in physical units (packets, packets/s, seconds). Keys t, W, alpha, q.
#[pyfunction]
#[pyo3(name = "fluid_dctcp", signature = (C_pps, d_s, K_pkt, g, N, queue_floor, init, t_end_s, dt_s, sample_dt_s, t_from_s, stats_from_s=None, envelope=false, stats_to_s=None))]
#[allow(non_snake_case, clippy::too_many_arguments)]
fn dctcp<'py>(
    py: Python<'py>,
    C_pps: f64,
    d_s: f64,
    K_pkt: f64,
    g: f64,
    N: f64,
    queue_floor: bool,
    init: Option<[f64; 3]>,
    t_end_s: f64,
    dt_s: f64,
    sample_dt_s: f64,
    t_from_s: f64,
    stats_from_s: Option<f64>,
    envelope: bool,
    stats_to_s: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let sys = Dctcp::new(C_pps, d_s, K_pkt, g, N, queue_floor, init).map_err(err)?;
    let o = Options {
        stats_from: stats_from_s,
        stats_to: stats_to_s,
        envelope,
        ..opts(dt_s, t_end_s, sample_dt_s, t_from_s)
    };
    let tr = interruptible(py, |cancel| integrate_until(&sys, &o, cancel))?.map_err(err)?;
    to_dict(py, ["W", "alpha", "q"], tr)
}

/// Batch of DX runs (3)-(4); every argument is a per-run array (same length). Keys t, W, Q.
#[pyfunction]
#[pyo3(name = "fluid_dx_batch", signature = (N, C_pps, R0_s, tau_s, p, window_floor, init_W, init_Q, t_end_s, dt_s, sample_dt_s, t_from_s, stats_from_s=None, envelope=false, stats_to_s=None))]
#[allow(non_snake_case, clippy::too_many_arguments)]
fn dx_batch<'py>(
    py: Python<'py>,
    N: Vec<f64>,
    C_pps: Vec<f64>,
    R0_s: Vec<f64>,
    tau_s: Vec<f64>,
    p: Vec<f64>,
    window_floor: bool,
    init_W: Vec<f64>,
    init_Q: Vec<f64>,
    t_end_s: Vec<f64>,
    dt_s: Vec<f64>,
    sample_dt_s: Vec<f64>,
    t_from_s: Vec<f64>,
    stats_from_s: Option<Vec<f64>>,
    envelope: bool,
    stats_to_s: Option<Vec<f64>>,
) -> PyResult<Bound<'py, PyList>> {
    let n = N.len();
    if let Some(s) = &stats_from_s {
        check_len("stats_from", s.len(), n)?;
    }
    if let Some(s) = &stats_to_s {
        check_len("stats_to", s.len(), n)?;
    }
    for (name, len) in [
        ("C", C_pps.len()),
        ("R0", R0_s.len()),
        ("tau", tau_s.len()),
        ("p", p.len()),
        ("init_W", init_W.len()),
        ("init_Q", init_Q.len()),
        ("t_end", t_end_s.len()),
        ("dt", dt_s.len()),
        ("sample_dt", sample_dt_s.len()),
        ("t_from", t_from_s.len()),
    ] {
        check_len(name, len, n)?;
    }
    let systems = (0..n)
        .map(|i| {
            Dx::new(N[i], C_pps[i], R0_s[i], tau_s[i], p[i], window_floor, [init_W[i], init_Q[i]])
                .map_err(|e| err(e.in_run(i)))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let options = (0..n)
        .map(|i| Options {
            stats_from: stats_from_s.as_ref().map(|s| s[i]),
            stats_to: stats_to_s.as_ref().map(|s| s[i]),
            envelope,
            ..opts(dt_s[i], t_end_s[i], sample_dt_s[i], t_from_s[i])
        })
        .collect();
    run_batch(py, ["W", "Q"], systems, options)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FLUID_MAX_SAMPLES", dcsim_core::fluid::dde::MAX_SAMPLES)?;
    m.add_function(wrap_pyfunction!(dctcp_normalized, m)?)?;
    m.add_function(wrap_pyfunction!(dctcp_normalized_batch, m)?)?;
    m.add_function(wrap_pyfunction!(dctcp, m)?)?;
    m.add_function(wrap_pyfunction!(dx_batch, m)?)?;
    Ok(())
}
