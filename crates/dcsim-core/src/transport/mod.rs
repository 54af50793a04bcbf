//! Transports: the reliable window sender/receiver (`tcp.rs`) with its Linux-profile mechanisms
//! (`sack.rs`: SACK blocks and the RFC 6675 scoreboard; `prr.rs`: Proportional Rate Reduction),
//! and the paced rate source of the L2 family (`rate.rs`).

pub mod prr;
pub mod rate;
pub mod sack;
pub mod tcp;
