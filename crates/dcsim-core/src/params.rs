//! User-facing parameter tables, shared by the three families that front ends read from the
//! engine: window congestion controllers (`cc/`, [`crate::cc::Protocol`]), queue disciplines
//! (`aqm/`, [`crate::aqm::QueueKind`]) and L2 rate schemes (`l2/`, [`crate::l2::Scheme`]). Each
//! declares its parameters once, with their names in scenarios (the papers'), their engine fields
//! and units; Python builds its scenario fields, range checks by unit and engine tables from them
//! (`ENGINE_DEFAULTS["protocols"]`, `["queues"]` and `["l2_schemes"]`), so a new controller,
//! discipline or scheme needs no change there.

use serde::Serialize;

/// The unit of a parameter, for front ends (how to parse, check and convert it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// bytes (a size such as "64KB")
    Bytes,
    /// picoseconds (a time such as "80us")
    Ps,
    /// bit/s (a rate such as "100Mbps")
    Bps,
    /// Hz (a frequency such as "20kHz")
    Hz,
    /// 1/s (a gain)
    PerSecond,
    /// a whole number >= 0
    Count,
    /// a probability in (0, 1]
    Probability,
    /// a positive number
    Number,
    /// a weight: a number >= 0 (0 switches its term off)
    Weight,
    /// true or false
    Flag,
    /// a gain or factor in (0, 1] (DCTCP's EWMA gain g, eq. 3 of the DCTCP analysis paper)
    Gain,
    /// a fraction in [0, 1] (an estimate such as DCTCP's alpha)
    Fraction,
    /// a base RTT: "min" (the minimum RTT sample seen), "path" (the path's exact base RTT,
    /// computed by the world builder) or a time > 0 (the engine's `BaseRttSpec`)
    BaseRtt,
    /// a queue length in packets or in bytes ("65pkt" or "30KB"; the engine's `Amount`)
    Amount,
    /// a queue length counted in packets, a real number ("5pkt", or a size such as "30KB"
    /// converted with the network's packet size)
    Packets,
    /// one of the listed words
    Choice(&'static [&'static str]),
}

impl Unit {
    /// The unit's name for front ends (`"ps"`, `"choice"`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Unit::Bytes => "bytes",
            Unit::Ps => "ps",
            Unit::Bps => "bps",
            Unit::Hz => "hz",
            Unit::PerSecond => "per_second",
            Unit::Count => "count",
            Unit::Probability => "probability",
            Unit::Number => "number",
            Unit::Weight => "weight",
            Unit::Flag => "flag",
            Unit::Gain => "gain",
            Unit::Fraction => "fraction",
            Unit::BaseRtt => "base_rtt",
            Unit::Amount => "amount",
            Unit::Packets => "packets",
            Unit::Choice(_) => "choice",
        }
    }
}

impl Serialize for Unit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One user-facing parameter: its name in scenarios (the papers'), its engine field, its unit.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Param {
    pub name: &'static str,
    pub field: &'static str,
    pub unit: Unit,
}

/// The parameters for front ends, each with its default taken from `defaults` (the serialised
/// `Default` of the family's parameter struct): name, engine field, unit, default, and for a
/// choice the words allowed.
pub fn describe(params: &[Param], defaults: &serde_json::Value) -> serde_json::Value {
    serde_json::Value::Array(
        params
            .iter()
            .map(|p| {
                let mut row = serde_json::json!({"name": p.name, "field": p.field, "unit": p.unit,
                                                 "default": defaults.get(p.field).cloned().unwrap_or_default()});
                if let Unit::Choice(words) = p.unit {
                    row["choices"] = serde_json::json!(words);
                }
                row
            })
            .collect(),
    )
}
