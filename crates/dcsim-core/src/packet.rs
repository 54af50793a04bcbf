//! Packets on the wire. Sequence numbers count segments (one full-size data packet each).

use crate::units::Time;

pub type NodeId = u32;
pub type FlowId = u32;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    #[default]
    Data,
    Ack,
    /// A rate-based L2 source's data frame (`transport/rate.rs`); `flow` is the source's index.
    Frame,
    /// A congestion point's feedback frame to the source of a sampled frame (`l2/`); `seq`
    /// carries the encoded signal, `aux` the CPID, `ts` the sampled frame's send time.
    Feedback,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    pub kind: Kind,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire.
    pub size: u32,
    /// Data: segment number. Ack: cumulative ack (next segment expected).
    pub seq: u64,
    /// ECN-capable transport (ECT): may be CE-marked instead of dropped.
    pub ect: bool,
    /// Congestion Experienced, set by a queue.
    pub ce: bool,
    /// ACK only: ECN-Echo.
    pub ece: bool,
    /// Data: time the sender sent it. Ack: echo of the data packet's timestamp (RTT sample).
    pub ts: Time,
    /// Feedback frames: the CPID of the congestion point that sent it; 0 otherwise.
    pub aux: u32,
}
