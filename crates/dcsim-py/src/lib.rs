//! Thin PyO3 binding of dcsim-core: JSON spec in, columnar numpy arrays out; the GIL is
//! released while the engine runs. Every engine error becomes a Python ValueError; no panic
//! crosses into Python.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

mod fluid;
mod parquet;
mod sim;

/// Run engine code so that a panic (a bug) becomes a Python RuntimeError instead of crossing
/// into Python.
pub(crate) fn no_panic<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        PyRuntimeError::new_err(format!("dcsim internal error (please report): {msg}"))
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The git commit of the sources this extension was built from (build.rs), or "unknown".
    m.add("__commit__", env!("DCSIM_GIT_COMMIT"))?;
    // SHA-256 of the engine's sources (build.rs): part of a sweep run's cache key.
    m.add("__engine_sources__", env!("DCSIM_ENGINE_SOURCES"))?;
    sim::register(m)?;
    fluid::register(m)?;
    parquet::register(m)?;
    Ok(())
}
