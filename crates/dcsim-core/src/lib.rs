//! dcsim-core: the engine of dcsim.
//!
//! * a deterministic packet-level simulator of data-center networks (integer picosecond time,
//!   one seeded RNG stream per component), with window transports (NewReno, DCTCP) over
//!   drop-tail, threshold-ECN and RED queues;
//! * workloads (`workload`): Poisson short flows with size distributions, incast rounds;
//! * layer-2 rate-based congestion control cores (`l2`: QCN, DSM, SMCC);
//! * a DDE integrator and the papers' fluid models (`fluid`).
//!
//! The boundary is data: a [`scenario::Spec`] (serde/JSON) in, columnar [`metrics::Table`]s out.

pub mod aqm;
pub mod cc;
pub mod error;
pub mod fluid;
pub mod l2;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod pages;
pub mod params;
pub mod prefetch;
pub mod rng;
pub mod scenario;
pub mod sched;
pub mod sim;
pub mod transport;
pub mod units;
pub mod workload;

pub use error::{Error, Result};
pub use scenario::Spec;
pub use sim::Sim;
