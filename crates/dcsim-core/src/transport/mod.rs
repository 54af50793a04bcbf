//! Transports: the reliable window sender/receiver (`tcp.rs`) and the paced rate source of the
//! L2 family (`rate.rs`).

pub mod rate;
pub mod tcp;
