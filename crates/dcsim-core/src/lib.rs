//! dcsim-core: the engine of dcsim.
//!
//! * a deterministic packet-level simulator of data-center networks (integer picosecond time,
//!   one seeded RNG stream per component), with window transports (NewReno, DCTCP) over
//!   drop-tail, threshold-ECN and RED queues;
//! * a DDE integrator and the papers' fluid models (`fluid`).
//!
//! The boundary is data: a [`scenario::Spec`] (serde/JSON) in, columnar results out.

pub mod fluid;
pub mod units;
