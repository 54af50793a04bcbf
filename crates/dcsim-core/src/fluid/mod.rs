//! Fluid models: a DDE integrator for the papers' delay-differential equations (fixed delays,
//! discontinuous right-hand sides, queue floors, batched parameter grids) and the models themselves.
//!
//! * [`dde`] — the integrator: classical RK4 on a fixed step grid, delayed states from a bounded
//!   ring buffer (exact grid values when the delay is an integer number of steps, cubic Hermite
//!   interpolation otherwise), switching times of delayed indicators located exactly (the step is
//!   split there, so the right-hand side is smooth on every sub-step), state floors with the
//!   `max(f, 0)` rule, and [`dde::integrate_batch`] over parameter grids in parallel (a rayon pool of its own per call).
//! * [`dctcp`] — the DCTCP fluid model, eqs. (5)-(8) of Alizadeh, Javanmard & Prabhakar (2011),
//!   and its normalized form (11)-(14), with and without the ψ queue floor of Section 3.3.2.
//! * [`dx`] — the DX fluid model, eqs. (3)-(4) of Jiang et al., with the one-segment window floor
//!   of its Section 3.3.

pub mod dctcp;
pub mod dde;
pub mod dx;

pub use dctcp::{Dctcp, DctcpNormalized};
pub use dde::{integrate, integrate_batch, integrate_batch_with, DdeSystem, Options, Switch, Trajectory};
pub use dx::Dx;

/// Everything a user can get wrong with a fluid run; never a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FluidError {
    /// A parameter is outside its allowed range; `name` is the user-facing argument name.
    #[error("{name} = {} is out of range: must be {range}", crate::units::short_num(*value))]
    InvalidParameter { name: String, value: f64, range: String },
    /// The state left the model's domain (NaN/inf, or 1 + q~ <= 0): the step is too large.
    #[error("integration diverged at t = {t}: state {component} = {value}; reduce dt (currently {dt})")]
    Diverged { t: f64, component: &'static str, value: f64, dt: f64 },
    /// The caller asked the run to stop ([`dde::integrate_until`]).
    #[error("interrupted at t = {t}")]
    Interrupted { t: f64 },
}

impl FluidError {
    /// The same error for run `i` of a batch: the parameter name gets an index, `wbar[3]`.
    pub fn in_run(self, i: usize) -> Self {
        match self {
            FluidError::InvalidParameter { name, value, range } => {
                let name = match name.split_once('.') {
                    Some((head, tail)) => format!("{head}[{i}].{tail}"),
                    None => format!("{name}[{i}]"),
                };
                FluidError::InvalidParameter { name, value, range }
            }
            FluidError::Diverged { t, component, value, dt } => FluidError::Diverged { t, component, value, dt },
            FluidError::Interrupted { t } => FluidError::Interrupted { t },
        }
    }
}

/// Check `lo <op> value <op> hi`; `name` and `range` go into the error message.
pub(crate) fn check(name: &str, value: f64, ok: bool, range: &str) -> Result<(), FluidError> {
    if ok && value.is_finite() {
        Ok(())
    } else {
        Err(FluidError::InvalidParameter { name: name.to_string(), value, range: range.to_string() })
    }
}
