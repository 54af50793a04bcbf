//! Transports: the reliable window sender/receiver (`tcp.rs`).

pub mod tcp;
