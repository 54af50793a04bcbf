//! Thin PyO3 binding of dcsim-core: JSON spec in, columnar numpy arrays out; the GIL is
//! released while the engine runs. Every engine error becomes a Python ValueError; no panic
//! crosses into Python.

use pyo3::prelude::*;

mod fluid;
mod sim;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    sim::register(m)?;
    fluid::register(m)?;
    Ok(())
}
