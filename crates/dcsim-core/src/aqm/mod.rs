//! Queue disciplines, one file each. A discipline decides, for an arriving packet, whether to
//! enqueue it, enqueue it CE-marked, or drop it: drop-tail and threshold marking see only the
//! packets that fit in the buffer, RED and CHOKe every arrival (their average and count follow
//! ns-2's `red.cc`; the buffer limit applies after their decision, see `Port::enqueue`).
//!
//! Adding a discipline: one file with a struct implementing [`Discipline`] (`admit`; RED's family
//! also `keeps_average` and `on_tail_drop`) and its `Params` implementing [`QueueKind`] (the name
//! in scenarios, the parameter table with units, the required parameters, an `example` (the
//! defaults, the required ones at values errors quote), the range checks against the buffer, the
//! discipline it builds, and its facts: `marks_ect` if it CE-marks ECN-capable packets, which the
//! warning about flows that are not needs, `reaches_into_queue`, `not_ect_fate`; serde with
//! defaults and `deny_unknown_fields`), plus its `pub mod` and one line in the `disciplines!`
//! list below, which generates [`AqmSpec`], [`Aqm`] and their dispatch. The Python front end
//! reads the disciplines, their parameters, units, defaults and facts from [`queues_table`]
//! (through `engine_defaults()`), so it needs no change. A random decision draws from the `rng`
//! that `admit` is given (the port's own stream: runs stay reproducible whatever the other ports
//! do).
//!
//! CHOKe (`choke.rs`) also looks into the queue and may mark or drop packets already in it; the
//! port calls it with access to its waiting packets (see `net/port.rs`).

pub mod choke;
pub mod droptail;
pub mod red;
pub mod threshold;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::params::Param;
use crate::rng::Rng;
use crate::scenario::Amount;
use crate::units::{Rate, Time};

pub use choke::{Choke, MatchRule};
pub use droptail::DropTail;
pub use red::Red;
pub use threshold::Threshold;

/// What the discipline does with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    Mark,
    Drop,
}

/// The queue as an arriving packet finds it (not counting the arriving packet, nor the packet
/// being serialised on the link).
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    pub packets: u64,
    pub bytes: u64,
    /// The link is idle and the queue empty since this time (None if busy).
    pub idle_since: Option<Time>,
}

/// What a queue discipline decides for an arriving packet.
pub trait Discipline {
    /// Decide on an arriving packet (`ect`: it is ECN-capable) at time `now`.
    fn admit(&mut self, q: QueueView, ect: bool, now: Time, rng: &mut Rng) -> Verdict;

    /// Does the discipline keep RED's average queue (RED, CHOKe)? Such a discipline sees every
    /// arrival, one the buffer then drops too (see `Port::enqueue`); the others only those that fit.
    fn keeps_average(&self) -> bool {
        false
    }

    /// The buffer dropped the arrival the discipline had let in (RED: its count starts again).
    fn on_tail_drop(&mut self) {}
}

/// A queue discipline as scenarios give it, implemented by each discipline file's `Params`: its
/// name, its parameters (with units, for front ends), which of them a scenario must give, their
/// range checks against the buffer, and the discipline of one port.
pub trait QueueKind: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned {
    /// The discipline's name in scenarios (`aqm = { kind = "..." }`).
    const NAME: &'static str;
    /// The user-facing parameters, in the order front ends list them.
    const PARAMS: &'static [Param];
    /// The parameters a scenario must give (names in scenarios); the others have defaults.
    const REQUIRED: &'static [&'static str] = &[];
    /// The discipline this kind runs.
    type Discipline: Discipline;
    /// The defaults, with the required parameters at example values (for front ends' tables and
    /// their "e.g." in errors).
    fn example() -> Self;
    /// Other names for this discipline with other defaults (name, the engine fields they set):
    /// the coexistence paper's modified CHOKe is CHOKe with m = 7.
    fn presets() -> Vec<(&'static str, serde_json::Value)> {
        Vec::new()
    }
    /// The discipline of one port (`packet_bytes`: the mean packet size, `rate`: the link's).
    fn discipline(&self, packet_bytes: u32, rate: Rate) -> Self::Discipline;
    /// Range checks of every parameter against the port's buffer `capacity`; an error names
    /// `field(name)` (the parameter's name in scenarios) and the allowed range. No default: a
    /// discipline states its ranges (or that it has none).
    fn check(&self, field: &dyn Fn(&str) -> String, capacity: Amount, packet_bytes: u32) -> Result<()>;
    /// Does it CE-mark ECN-capable packets (and so drop, where it would mark, those that are not)?
    fn marks_ect(&self) -> bool {
        false
    }
    /// Does it reach into the queue (drop packets already queued: CHOKe)? Partitioned runs
    /// refuse such queues.
    fn reaches_into_queue(&self) -> bool {
        false
    }
    /// What it does with packets that are not ECN-capable where it would mark one, for warnings.
    fn not_ect_fate(&self) -> &'static str {
        "drops them where it would mark"
    }
}

/// A discipline for front ends under `name` with the engine fields `preset` changed from its
/// defaults: its engine `kind`, parameters (name, engine field, unit, default; choices), the
/// required ones, and the facts of the defaults.
fn describe<Q: QueueKind>(name: &str, preset: serde_json::Value, wrap: fn(Q) -> AqmSpec) -> serde_json::Value {
    let mut defaults = serde_json::to_value(Q::example()).unwrap_or_default();
    if let (Some(d), Some(p)) = (defaults.as_object_mut(), preset.as_object()) {
        d.extend(p.clone());
    }
    // A preset names fields of the discipline (`the_queues_table_lists_every_discipline_...`).
    let spec = wrap(serde_json::from_value(defaults.clone()).expect("a preset sets fields of its discipline"));
    let kind = serde_json::to_value(&spec).ok().and_then(|v| v.get("kind").cloned()).unwrap_or_default();
    serde_json::json!({
        "name": name,
        "kind": kind,
        "params": crate::params::describe(Q::PARAMS, &defaults),
        "required": Q::REQUIRED,
        "facts": spec.facts(),
    })
}

/// The disciplines, one `Variant => module` each (the module's `Params` implements
/// [`QueueKind`], its discipline [`Discipline`]): generates [`AqmSpec`] (serde tag `kind`, the
/// variant in snake_case), the enum [`Aqm`] a port holds, with every [`Discipline`] hook
/// dispatched by a match (no virtual call on the per-packet path), and [`queues_table`].
macro_rules! disciplines {
    ($($(#[$doc:meta])* $variant:ident => $module:ident),+ $(,)?) => {
        /// A queue discipline with its parameters, as scenarios give it.
        #[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum AqmSpec {
            $($(#[$doc])* $variant($module::Params),)+
        }

        /// The discipline of one port.
        pub enum Aqm {
            $($variant(<$module::Params as QueueKind>::Discipline)),+
        }

        impl AqmSpec {
            /// The discipline's name in scenarios.
            pub fn name(&self) -> &'static str {
                match self { $(AqmSpec::$variant(_) => <$module::Params as QueueKind>::NAME,)+ }
            }

            /// Range checks against the buffer ([`QueueKind::check`]).
            pub fn check(&self, field: &dyn Fn(&str) -> String, capacity: Amount, packet_bytes: u32) -> Result<()> {
                match self { $(AqmSpec::$variant(p) => QueueKind::check(p, field, capacity, packet_bytes),)+ }
            }

            /// Does it CE-mark ECN-capable packets ([`QueueKind::marks_ect`])?
            pub fn marks_ect(&self) -> bool {
                match self { $(AqmSpec::$variant(p) => QueueKind::marks_ect(p),)+ }
            }

            /// Does it drop packets already queued ([`QueueKind::reaches_into_queue`])?
            pub fn reaches_into_queue(&self) -> bool {
                match self { $(AqmSpec::$variant(p) => QueueKind::reaches_into_queue(p),)+ }
            }

            /// What it does with packets that are not ECN-capable ([`QueueKind::not_ect_fate`]).
            pub fn not_ect_fate(&self) -> &'static str {
                match self { $(AqmSpec::$variant(p) => QueueKind::not_ect_fate(p),)+ }
            }
        }

        impl Aqm {
            /// The discipline of a port whose mean packet is `packet_bytes` on a link of `rate`.
            pub fn new(spec: &AqmSpec, packet_bytes: u32, rate: Rate) -> Aqm {
                match spec { $(AqmSpec::$variant(p) => Aqm::$variant(QueueKind::discipline(p, packet_bytes, rate)),)+ }
            }
        }

        /// The disciplines for front ends, in this list's order, each followed by its presets:
        /// name, engine `kind`, parameters (name, engine field, unit, default), the required ones
        /// and the facts of the defaults (`engine_defaults()["queues"]`).
        pub fn queues_table() -> serde_json::Value {
            let mut rows = Vec::new();
            $(
                let name = <$module::Params as QueueKind>::NAME;
                rows.push(describe::<$module::Params>(name, serde_json::json!({}), AqmSpec::$variant));
                for (preset, fields) in <$module::Params as QueueKind>::presets() {
                    rows.push(describe::<$module::Params>(preset, fields, AqmSpec::$variant));
                }
            )+
            serde_json::Value::Array(rows)
        }

        impl Discipline for Aqm {
            #[inline]
            fn admit(&mut self, q: QueueView, ect: bool, now: Time, rng: &mut Rng) -> Verdict {
                match self { $(Aqm::$variant(a) => Discipline::admit(a, q, ect, now, rng)),+ }
            }
            #[inline]
            fn keeps_average(&self) -> bool {
                match self { $(Aqm::$variant(a) => Discipline::keeps_average(a)),+ }
            }
            #[inline]
            fn on_tail_drop(&mut self) {
                match self { $(Aqm::$variant(a) => Discipline::on_tail_drop(a)),+ }
            }
        }
    };
}

disciplines! {
    /// Drop-tail: no marking; the buffer limit drops what does not fit.
    DropTail => droptail,
    /// DCTCP threshold marking: CE on enqueue when the instantaneous queue is at least K.
    Threshold => threshold,
    /// RED (Floyd & Jacobson 1993, ns-2 `red.cc` semantics), thresholds in packets.
    Red => red,
    /// CHOKe on RED (Pan et al. 2000); `m` packets drawn per arrival, matched by `rule` (`all`:
    /// the coexistence paper's modified CHOKe, Section IV-E). RED fields as for `Red`.
    Choke => choke,
}

impl Default for AqmSpec {
    fn default() -> Self {
        AqmSpec::drop_tail()
    }
}

impl AqmSpec {
    /// Drop-tail.
    pub fn drop_tail() -> Self {
        AqmSpec::DropTail(droptail::Params {})
    }
    /// Threshold marking at K.
    pub fn threshold(k: Amount) -> Self {
        AqmSpec::Threshold(threshold::Params { k })
    }

    /// The facts front ends ask of a discipline: `marks_ect` (it CE-marks ECN-capable packets),
    /// `keeps_average` (RED's average queue: it sees every arrival, and plots show its
    /// thresholds against the average), `reaches_into_queue` (it drops packets already queued)
    /// and `not_ect_fate` (for the warning about flows that are not ECN-capable).
    pub fn facts(&self) -> serde_json::Value {
        let keeps_average = Aqm::new(self, 1500, Rate(1_000_000_000)).keeps_average();
        serde_json::json!({
            "marks_ect": self.marks_ect(),
            "keeps_average": keeps_average,
            "reaches_into_queue": self.reaches_into_queue(),
            "not_ect_fate": self.not_ect_fate(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    /// The table front ends read: every discipline of the list in its order, each followed by its
    /// presets (modified CHOKe: CHOKe with m = 7), with its engine kind, parameters (name, field,
    /// unit, default; a choice's words), required ones and facts; the table's fields are exactly
    /// the serialised parameters, its defaults the serde defaults; and the scenario JSON of each
    /// discipline is that of the enum before the table (`kind` with the fields beside it).
    #[test]
    fn the_queues_table_lists_every_discipline_with_its_parameters() {
        let table = queues_table();
        let rows = table.as_array().expect("a list");
        let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
        // The list's order (a discipline added anywhere in it keeps this test), a preset right
        // after its discipline.
        let at = |n: &str| names.iter().position(|&m| m == n).unwrap_or_else(|| panic!("{n} missing: {names:?}"));
        assert!(at("droptail") < at("threshold") && at("threshold") < at("red") && at("red") < at("choke"));
        assert_eq!(at("modified_choke"), at("choke") + 1);
        let row = |n: &str| rows.iter().find(|r| r["name"] == n).unwrap().clone();
        assert_eq!(row("droptail")["kind"], "drop_tail");
        assert_eq!(
            row("threshold")["params"][0],
            serde_json::json!({"name": "K", "field": "k", "unit": "amount", "default": {"packets": 65}})
        );
        assert_eq!(row("threshold")["required"], serde_json::json!(["K"]));
        let red = row("red");
        assert_eq!(red["required"], serde_json::json!(["min_th", "max_th", "max_p"]));
        assert_eq!(red["params"][0]["field"], "min_th_pkt");
        assert_eq!(
            red["params"][3],
            serde_json::json!({"name": "w_q", "field": "w_q", "unit": "gain", "default": 0.002})
        );
        let (choke, modified) = (row("choke"), row("modified_choke"));
        assert_eq!(modified["kind"], "choke");
        assert_eq!(choke["params"][7]["default"], 1);
        assert_eq!(modified["params"][7]["default"], 7);
        assert_eq!(
            modified["params"][8],
            serde_json::json!({"name": "match", "field": "rule", "unit": "choice", "default": "all",
                               "choices": ["all", "any"]})
        );
        // Facts: threshold marking always marks; RED's family keeps the average; CHOKe reaches
        // into the queue; drop-tail does none of it.
        let facts = |n: &str| {
            let f = row(n)["facts"].clone();
            (
                f["marks_ect"].as_bool().unwrap(),
                f["keeps_average"].as_bool().unwrap(),
                f["reaches_into_queue"].as_bool().unwrap(),
            )
        };
        assert_eq!(facts("droptail"), (false, false, false));
        assert_eq!(facts("threshold"), (true, false, false));
        assert_eq!(facts("red"), (true, true, false));
        assert_eq!(facts("modified_choke"), (true, true, true));
        for r in rows {
            // The required parameters given (the table's examples), every other one at its default.
            let params = r["params"].as_array().unwrap();
            let mut given = serde_json::json!({"kind": r["kind"]});
            for p in params {
                let name = p["name"].as_str().unwrap();
                if r["required"].as_array().unwrap().iter().any(|q| q == name) {
                    given[p["field"].as_str().unwrap()] = p["default"].clone();
                }
            }
            let spec: AqmSpec = serde_json::from_value(given).unwrap();
            if r["name"] != "modified_choke" {
                assert_eq!(spec.name(), r["name"]);
            }
            // Every parameter at the table's default (a preset's too) is a spec that writes them back.
            let mut every = serde_json::json!({"kind": r["kind"]});
            for p in params {
                every[p["field"].as_str().unwrap()] = p["default"].clone();
            }
            let back = serde_json::to_value(serde_json::from_value::<AqmSpec>(every.clone()).unwrap()).unwrap();
            assert_eq!(back, every, "{}", r["name"]);
            let mut written = serde_json::to_value(&spec).unwrap();
            let written = written.as_object_mut().unwrap();
            written.remove("kind");
            let fields: std::collections::BTreeSet<&str> =
                params.iter().map(|p| p["field"].as_str().unwrap()).collect();
            assert_eq!(fields, written.keys().map(String::as_str).collect(), "{}", r["name"]);
            for p in params {
                assert!(!p["default"].is_null(), "{}: {}", r["name"], p["name"]);
                if r["name"] != "modified_choke" {
                    assert_eq!(written[p["field"].as_str().unwrap()], p["default"], "{}", r["name"]);
                }
            }
        }
        let red: AqmSpec = serde_json::from_str(
            r#"{"kind": "red", "min_th_pkt": 5.0, "max_th_pkt": 15.0, "max_p": 0.1, "w_q": 0.002,
                "gentle": false, "ecn": true, "wait": true}"#,
        )
        .unwrap();
        assert_eq!(red, AqmSpec::Red(red::Params::example()));
        assert_eq!(serde_json::to_value(AqmSpec::drop_tail()).unwrap(), serde_json::json!({"kind": "drop_tail"}));
        let err =
            serde_json::from_str::<AqmSpec>(r#"{"kind": "red", "min_th_pkt": 5.0, "max_th_pkt": 15.0}"#).unwrap_err();
        assert!(err.to_string().contains("missing field `max_p`"), "{err}");
        let err = serde_json::from_str::<AqmSpec>(r#"{"kind": "threshold", "k": {"packets": 5}, "m": 2}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `m`"), "{err}");
        // Drop-tail with a stray key: the enum's unit variant had let it through (serde ignores
        // deny_unknown_fields for unit variants of internally tagged enums; a review).
        let err = serde_json::from_str::<AqmSpec>(r#"{"kind": "drop_tail", "k": {"packets": 5}}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `k`"), "{err}");
        assert!(serde_json::from_str::<AqmSpec>(r#"{"kind": "pie"}"#).is_err());
    }

    /// Each discipline's checks against the buffer name the parameter as scenarios write it, with
    /// the allowed range: K below the buffer, 0 <= min_th < max_th <= buffer, max_p and w_q in
    /// (0, 1], CHOKe's m within a buffer of packets.
    #[test]
    fn checks_against_the_buffer_name_the_parameter() {
        let field = |n: &str| format!("network.aqm.{n}");
        let cap = Amount::Packets(100);
        let err = |a: AqmSpec, cap: Amount| a.check(&field, cap, 1500).unwrap_err().to_string();
        assert!(AqmSpec::threshold(Amount::Packets(99)).check(&field, cap, 1500).is_ok());
        let e = err(AqmSpec::threshold(Amount::Packets(100)), cap);
        assert!(e.contains("network.aqm.K") && e.contains("0 < K < buffer") && e.contains("100pkt"), "{e}");
        let e = err(AqmSpec::threshold(Amount::Bytes(150_000)), cap);
        assert!(e.contains("150000B is not below the buffer 100pkt"), "{e}");
        let red = red::Params::example();
        let e = err(AqmSpec::Red(red::Params { max_th: 101.0, ..red }), cap);
        assert!(e.contains("network.aqm.max_th") && e.contains("max_th <= buffer"), "{e}");
        // A threshold given in bytes arrives as a fraction of packets: shown to four decimals.
        let e = err(AqmSpec::Red(red::Params { max_th: 200_000.0 / 1500.0, ..red }), Amount::Bytes(31_000));
        assert!(e.contains("133.3333 packets is larger than the buffer 31000B (20.6667 packets of 1500 B)"), "{e}");
        let e = err(AqmSpec::Red(red::Params { max_th: 1e300, ..red }), cap);
        assert!(e.contains("1e300 packets is larger"), "{e}");
        let e = err(AqmSpec::Red(red::Params { max_th: 4.0, ..red }), cap);
        assert!(e.contains("network.aqm.max_th: 4 packets must be larger than min_th = 5 packets"), "{e}");
        let e = err(AqmSpec::Red(red::Params { min_th: -1.0, ..red }), cap);
        assert!(e.contains("network.aqm.min_th") && e.contains(">= 0"), "{e}");
        let e = err(AqmSpec::Red(red::Params { max_p: 0.0, ..red }), cap);
        assert!(e.contains("network.aqm.max_p") && e.contains("(0, 1]"), "{e}");
        let e = err(AqmSpec::Red(red::Params { w_q: 1.5, ..red }), cap);
        assert!(e.contains("network.aqm.w_q"), "{e}");
        let choke = <choke::Params as QueueKind>::example();
        assert!(AqmSpec::Choke(choke::Params { m: 100, ..choke }).check(&field, cap, 1500).is_ok());
        let e = err(AqmSpec::Choke(choke::Params { m: 101, ..choke }), cap);
        assert!(e.contains("network.aqm.m") && e.contains("1 <= m <= buffer (100pkt: 100 packets)"), "{e}");
        let e = err(AqmSpec::Choke(choke::Params { m: 0, ..choke }), Amount::Bytes(30_000));
        assert!(e.contains("(30000B: 20 packets)"), "{e}");
        let e = err(AqmSpec::Choke(choke::Params { max_th: 200.0, ..choke }), cap);
        assert!(e.contains("network.aqm.max_th"), "{e}"); // RED's checks, in CHOKe too
        assert!(AqmSpec::drop_tail().check(&field, Amount::Packets(1), 1500).is_ok());
    }

    #[test]
    fn a_tail_drop_restarts_reds_count_in_red_and_in_choke() {
        // Average above min_th (w_q = 1, queue 10 > 5), max_p small with `wait`: no mark for the
        // first ~1/p_b arrivals, so three arrivals leave count = 3 (the first one above min_th
        // sets it to 1). A tail drop then restarts it at 0 (ns-2 red.cc's forced drop), in RED
        // and in CHOKe, which keeps RED's state.
        let p = red::Params { min_th: 5.0, max_th: 15.0, max_p: 0.01, w_q: 1.0, gentle: false, ecn: true, wait: true };
        let rate = Rate(1_000_000_000);
        let count = |a: &Aqm| match a {
            Aqm::Red(r) => r.count(),
            Aqm::Choke(c) => c.red.count(),
            _ => unreachable!(),
        };
        for mut aqm in [Aqm::Red(Red::new(p, 1500, rate)), Aqm::Choke(Choke::new(p, 1, MatchRule::All, 1500, rate))] {
            let mut rng = stream(1, Stream::Port, 0);
            let q = QueueView { packets: 10, bytes: 15_000, idle_since: None };
            for _ in 0..3 {
                assert_eq!(aqm.admit(q, true, Time(0), &mut rng), Verdict::Enqueue);
            }
            assert_eq!(count(&aqm), 3);
            aqm.on_tail_drop();
            assert_eq!(count(&aqm), 0);
        }
    }

    /// RED and CHOKe decide before the buffer limit (they see every arrival: protocols.md §5,
    /// ns-2 `red.cc`); drop-tail and threshold marking see only the packets that fit. A discipline
    /// that states nothing else keeps no average and ignores a tail drop.
    #[test]
    fn only_reds_family_sees_every_arrival() {
        let p = red::Params { min_th: 5.0, max_th: 15.0, max_p: 0.1, w_q: 0.002, gentle: false, ecn: true, wait: true };
        let rate = Rate(1_000_000_000);
        for (name, aqm, sees_every_arrival) in [
            ("droptail", Aqm::DropTail(DropTail), false),
            ("threshold", Aqm::Threshold(Threshold::new(crate::scenario::Amount::Packets(65))), false),
            ("red", Aqm::Red(Red::new(p, 1500, rate)), true),
            ("choke", Aqm::Choke(Choke::new(p, 1, MatchRule::All, 1500, rate)), true),
        ] {
            assert_eq!(aqm.keeps_average(), sees_every_arrival, "{name}");
        }
        struct EnqueueAll;
        impl Discipline for EnqueueAll {
            fn admit(&mut self, _q: QueueView, _ect: bool, _now: Time, _rng: &mut Rng) -> Verdict {
                Verdict::Enqueue
            }
        }
        let mut d = EnqueueAll;
        d.on_tail_drop();
        assert!(!d.keeps_average());
    }
}
