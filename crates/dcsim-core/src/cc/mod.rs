//! Window congestion controllers, one file each.
//!
//! The reliable transport (`transport/tcp.rs`) owns slow start, congestion avoidance, loss
//! recovery and timers, which NewReno and DCTCP share ("This is the only difference between a
//! DCTCP source and a TCP source", DCTCP analysis paper §2.1). A controller decides only what
//! differs: how it estimates congestion from ECN echoes and how far it cuts on an ECN signal.
//!
//! Controllers that set the window themselves (delay-based ones such as DX; TIMELY or Swift would
//! fit the same shape) use four small hooks: [`Controller::on_rtt_sample`] sees every RTT sample,
//! [`Controller::window_round`] makes the window decision once per RTT,
//! [`Controller::owns_window`] keeps the transport's own increase (slow start, congestion
//! avoidance) away from the window, and [`Controller::reacts_to_loss`] /
//! [`Controller::ecn_response`] say whether losses and ECN-Echo change it.
//! [`Controller::nic_tx_timestamps`] asks for data packets to be stamped when their transmission
//! starts on the NIC (hardware timestamps) instead of when the transport hands them over.
//!
//! Adding a controller: one file with a struct implementing [`Controller`] (only the hooks where
//! it differs from the defaults, which are those of a controller that ignores ECN and leaves the
//! window to the transport) and its `Params` implementing [`Protocol`] (the name in scenarios,
//! the parameter table with units, the range checks, the controller it builds; serde with
//! defaults and `deny_unknown_fields`), plus its `pub mod` and one line in the `controllers!`
//! list below, which generates [`ProtocolSpec`], [`Cc`] and their dispatch. The Python front end
//! reads the protocols, their parameters, units, defaults and facts from [`protocols_table`]
//! (through `engine_defaults()`), so it needs no change.

pub mod dctcp;
pub mod dctcp_improved_fairness;
pub mod dx;
pub mod newreno;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::Result;
pub use crate::params::{Param, Unit};
use crate::units::Time;

pub use dctcp::Dctcp;
pub use dctcp_improved_fairness::DctcpImprovedFairness;
pub use dx::{BaseRtt, Dx, Round};
pub use newreno::NewReno;

/// How a controller responds to an ACK carrying ECN-Echo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnResponse {
    /// Cut with [`Controller::ecn_cut`] at most once per window (RFC 3168; NewReno, DCTCP).
    OncePerWindow,
    /// Subtract [`Controller::per_ack_ecn_decrease`] on every marked ACK (DCTCP–Improved
    /// Fairness, eq. 36).
    PerAck,
    /// Ignore ECN-Echo (the controller does not use ECN).
    None,
}

/// What a window congestion controller decides; each hook's default is that of a controller
/// that ignores ECN, reacts to losses as the transport does, and leaves the window to the
/// transport's slow start and congestion avoidance.
pub trait Controller {
    /// Does this sender mark its data packets ECN-capable (ECT)?
    fn ect(&self) -> bool {
        false
    }

    /// Per-ACK congestion estimate update: `acked` segments newly acknowledged, `ece` the ACK's
    /// ECN-Echo, `ack_no` its cumulative ack, `snd_nxt` the next segment to send.
    fn on_ack(&mut self, _acked: u64, _ece: bool, _ack_no: u64, _snd_nxt: u64) {}

    /// How ECN-Echo changes the window.
    fn ecn_response(&self) -> EcnResponse {
        EcnResponse::None
    }

    /// Window after an ECN congestion signal (applied at most once per window of data).
    fn ecn_cut(&self, cwnd: f64) -> f64 {
        cwnd
    }

    /// Window after a marked ACK covering `acked` segments, for [`EcnResponse::PerAck`].
    fn per_ack_ecn_decrease(&self, cwnd: f64, _acked: u64) -> f64 {
        cwnd
    }

    /// Do losses (fast retransmit, recovery) change the window (ssthresh, halving, inflation)?
    fn reacts_to_loss(&self) -> bool {
        true
    }

    /// Under the Linux profile, does a loss found during an ECN reduction (CWR -> Recovery) set
    /// ssthresh again? DCTCP's does (`dctcp_state` halves the window on entering Recovery); Reno's
    /// keeps the CWR's ssthresh (`tcp_enter_recovery` starts no new reduction inside one).
    fn halves_on_loss_in_cwr(&self) -> bool {
        false
    }

    /// Does the controller set the window itself ([`Controller::window_round`]) instead of the
    /// transport's slow start and congestion avoidance?
    fn owns_window(&self) -> bool {
        false
    }

    /// Stamp data packets when their transmission starts on the NIC (hardware timestamps)?
    fn nic_tx_timestamps(&self) -> bool {
        false
    }

    /// Every RTT sample (one per ACK, from the echoed timestamp). A controller with a base RTT
    /// returns whether the sample exceeds it (shows queueing); the others None.
    fn on_rtt_sample(&mut self, _rtt: Time) -> Option<bool> {
        None
    }

    /// Once-per-RTT window decision of a controller that owns its window: called for every ACK
    /// of new data; returns the round's outcome when a round ends.
    fn window_round(&mut self, _cwnd: f64, _ack_no: u64, _snd_nxt: u64, _cwnd_limited: bool) -> Option<Round> {
        None
    }

    /// DCTCP's alpha; NaN for controllers without one.
    fn alpha(&self) -> f64 {
        f64::NAN
    }

    /// The base RTT a delay-based controller uses now, s; NaN for the others (or before a sample).
    fn base_rtt_s(&self) -> f64 {
        f64::NAN
    }

    /// Use Linux's fixed-point DCTCP arithmetic (`dctcp_fixed_point`; see `cc/dctcp.rs`).
    fn use_linux_dctcp(&mut self) {}

    /// Use Linux's whole-segment Reno halving (`tcp_reno_ssthresh`; the linux profile).
    fn use_linux_reno(&mut self) {}
}

/// A protocol as scenarios give it, implemented by each controller file's `Params`: its name,
/// its parameters (with units, for front ends; their defaults are the `Default`), their range
/// checks, and the controller of one flow.
pub trait Protocol: Clone + std::fmt::Debug + PartialEq + Default + Serialize + DeserializeOwned {
    /// The protocol's name in scenarios (`protocol = "..."`).
    const NAME: &'static str;
    /// The user-facing parameters, in the order front ends list them.
    const PARAMS: &'static [Param];
    /// The window floor when a flow gives none (ns-2 profile), packets: 2, the DCTCP analysis
    /// paper's ns-2 floor, unless the protocol's paper says otherwise.
    const MIN_CWND_PKT: f64 = 2.0;
    /// The controller this protocol runs.
    type Controller: Controller;
    /// The controller of one flow.
    fn controller(&self) -> Self::Controller;
    /// Range checks of every parameter; an error names `field(name)` (the parameter's name in
    /// scenarios) and the allowed range. No default: a protocol states its ranges (or that it
    /// has none to check).
    fn check(&self, field: &dyn Fn(&str) -> String) -> Result<()>;
    /// DCTCP's EWMA gain g, for a protocol that keeps DCTCP's alpha (the linux profile keeps g as
    /// a shift, so it must be 2^-k).
    fn dctcp_g(&self) -> Option<f64> {
        None
    }
    /// Is a base RTT given as "path", for the world builder to resolve ([`Protocol::set_base_rtt`])?
    fn wants_path_rtt(&self) -> bool {
        false
    }
    /// The path's exact base RTT, computed by the world builder for a protocol that wants it.
    fn set_base_rtt(&mut self, _rtt: Time) {}
    /// Why ECN-Echo does not cut this protocol's window once per window, for the error that
    /// refuses `ecn_response = "prr"` (asked only of one that does not); None: the generic reason.
    fn why_no_window_cut(&self) -> Option<&'static str> {
        None
    }
    /// How a flow of this protocol whose data is not ECN-capable is written, for errors (NewReno:
    /// " with ecn = false"); empty by default.
    fn not_ect_as(&self) -> &'static str {
        ""
    }
}

/// A protocol for front ends: its name, its engine `kind`, its parameters (name, engine field,
/// unit, default), its window floor and the facts of its defaults.
fn describe<P: Protocol>(spec: ProtocolSpec) -> serde_json::Value {
    let defaults = serde_json::to_value(P::default()).unwrap_or_default();
    let kind = serde_json::to_value(&spec).ok().and_then(|v| v.get("kind").cloned()).unwrap_or_default();
    serde_json::json!({
        "name": P::NAME,
        "kind": kind,
        "params": crate::params::describe(P::PARAMS, &defaults),
        "min_cwnd_pkt": P::MIN_CWND_PKT,
        "facts": spec.facts(),
    })
}

/// The protocols, one `Variant => module` each (the module's `Params` implements [`Protocol`]):
/// generates [`ProtocolSpec`] (serde tag `kind`, the variant in snake_case), the enum [`Cc`] the
/// transport holds, with every [`Controller`] hook dispatched by a match (no virtual call on the
/// per-ACK path), and [`protocols_table`].
macro_rules! controllers {
    ($($(#[$doc:meta])* $variant:ident => $module:ident),+ $(,)?) => {
        /// Window congestion controller of a flow, with its parameters.
        #[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum ProtocolSpec {
            $($(#[$doc])* $variant($module::Params),)+
        }

        /// The controller of one flow.
        pub enum Cc {
            $($variant(<$module::Params as Protocol>::Controller)),+
        }

        impl ProtocolSpec {
            /// The protocol's name in scenarios.
            pub fn name(&self) -> &'static str {
                match self { $(ProtocolSpec::$variant(_) => <$module::Params as Protocol>::NAME,)+ }
            }

            /// The window floor of this protocol when a flow gives none, packets
            /// ([`Protocol::MIN_CWND_PKT`]: 1 segment for DX, the paper's floor; 2 for the TCPs,
            /// the DCTCP analysis paper's ns-2 floor).
            pub fn default_min_cwnd_pkt(&self) -> f64 {
                match self { $(ProtocolSpec::$variant(_) => <$module::Params as Protocol>::MIN_CWND_PKT,)+ }
            }

            /// Range checks of the protocol's parameters ([`Protocol::check`]).
            pub fn check(&self, field: &dyn Fn(&str) -> String) -> Result<()> {
                match self { $(ProtocolSpec::$variant(p) => Protocol::check(p, field),)+ }
            }

            /// DCTCP's g, for a protocol that keeps DCTCP's alpha ([`Protocol::dctcp_g`]).
            pub fn dctcp_g(&self) -> Option<f64> {
                match self { $(ProtocolSpec::$variant(p) => Protocol::dctcp_g(p),)+ }
            }

            /// Is a base RTT given as "path" ([`Protocol::wants_path_rtt`])?
            pub fn wants_path_rtt(&self) -> bool {
                match self { $(ProtocolSpec::$variant(p) => Protocol::wants_path_rtt(p),)+ }
            }

            /// The path's exact base RTT, from the world builder ([`Protocol::set_base_rtt`]).
            pub fn set_base_rtt(&mut self, rtt: Time) {
                match self { $(ProtocolSpec::$variant(p) => Protocol::set_base_rtt(p, rtt),)+ }
            }

            /// Why ECN-Echo does not cut the window once per window ([`Protocol::why_no_window_cut`],
            /// else the generic reason).
            pub fn no_window_cut_reason(&self) -> String {
                let why = match self { $(ProtocolSpec::$variant(p) => Protocol::why_no_window_cut(p),)+ };
                why.map_or_else(|| format!("protocol = {} never reduces its window on ECN", self.name()), str::to_string)
            }

            /// How a flow that is not ECN-capable is written ([`Protocol::not_ect_as`]).
            pub fn not_ect_as(&self) -> &'static str {
                match self { $(ProtocolSpec::$variant(p) => Protocol::not_ect_as(p),)+ }
            }
        }

        impl Cc {
            /// The controller of `spec`. The world builder resolves a base RTT of "path" to the
            /// path's exact base RTT before this; a spec built by hand with it keeps "path", which
            /// DX reads as the minimum RTT.
            pub fn new(spec: &ProtocolSpec) -> Cc {
                match spec { $(ProtocolSpec::$variant(p) => Cc::$variant(Protocol::controller(p)),)+ }
            }
        }

        /// The protocols for front ends, in this list's order: for each, its name, engine `kind`,
        /// parameters (name, engine field, unit, default), window floor and the facts of its
        /// defaults (`engine_defaults()["protocols"]`).
        pub fn protocols_table() -> serde_json::Value {
            serde_json::Value::Array(vec![
                $(describe::<$module::Params>(ProtocolSpec::$variant(<$module::Params>::default())),)+
            ])
        }

        impl Controller for Cc {
            #[inline]
            fn ect(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::ect(c)),+ }
            }
            #[inline]
            fn on_ack(&mut self, acked: u64, ece: bool, ack_no: u64, snd_nxt: u64) {
                match self { $(Cc::$variant(c) => Controller::on_ack(c, acked, ece, ack_no, snd_nxt)),+ }
            }
            #[inline]
            fn ecn_response(&self) -> EcnResponse {
                match self { $(Cc::$variant(c) => Controller::ecn_response(c)),+ }
            }
            #[inline]
            fn ecn_cut(&self, cwnd: f64) -> f64 {
                match self { $(Cc::$variant(c) => Controller::ecn_cut(c, cwnd)),+ }
            }
            #[inline]
            fn per_ack_ecn_decrease(&self, cwnd: f64, acked: u64) -> f64 {
                match self { $(Cc::$variant(c) => Controller::per_ack_ecn_decrease(c, cwnd, acked)),+ }
            }
            #[inline]
            fn reacts_to_loss(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::reacts_to_loss(c)),+ }
            }
            #[inline]
            fn halves_on_loss_in_cwr(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::halves_on_loss_in_cwr(c)),+ }
            }
            #[inline]
            fn owns_window(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::owns_window(c)),+ }
            }
            #[inline]
            fn nic_tx_timestamps(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::nic_tx_timestamps(c)),+ }
            }
            #[inline]
            fn on_rtt_sample(&mut self, rtt: Time) -> Option<bool> {
                match self { $(Cc::$variant(c) => Controller::on_rtt_sample(c, rtt)),+ }
            }
            #[inline]
            fn window_round(&mut self, cwnd: f64, ack_no: u64, snd_nxt: u64, cwnd_limited: bool) -> Option<Round> {
                match self { $(Cc::$variant(c) => Controller::window_round(c, cwnd, ack_no, snd_nxt, cwnd_limited)),+ }
            }
            #[inline]
            fn alpha(&self) -> f64 {
                match self { $(Cc::$variant(c) => Controller::alpha(c)),+ }
            }
            #[inline]
            fn base_rtt_s(&self) -> f64 {
                match self { $(Cc::$variant(c) => Controller::base_rtt_s(c)),+ }
            }
            #[inline]
            fn use_linux_dctcp(&mut self) {
                match self { $(Cc::$variant(c) => Controller::use_linux_dctcp(c)),+ }
            }
            #[inline]
            fn use_linux_reno(&mut self) {
                match self { $(Cc::$variant(c) => Controller::use_linux_reno(c)),+ }
            }
        }
    };
}

controllers! {
    /// DCTCP (Alizadeh et al. 2010, RFC 8257): alpha EWMA with gain g, cut cwnd*(1-alpha/2).
    Dctcp => dctcp,
    /// TCP NewReno (RFC 5681/6582); `ecn` makes it ECN-capable (RFC 3168 halving on ECE).
    Newreno => newreno,
    /// DX (DX analysis paper, eqs. 1-2): once per RTT W + 1 if the queueing delay Q = 0, else
    /// W (1 - Q/U), U = R0 W/(W - 1); no ECN, no loss signal; see `cc/dx.rs`.
    Dx => dx,
    /// "DCTCP–Improved Fairness" (DCTCP analysis paper §5.2, eq. 36): DCTCP's alpha, but
    /// W <- W + 1/W - alpha/2 on every marked ACK instead of one cut per window.
    DctcpImprovedFairness => dctcp_improved_fairness,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::BaseRttSpec;

    /// The table front ends read: every protocol of the list, in its order (the papers' first),
    /// with its engine kind, parameters (name, field, unit, default) and window floor; a table of
    /// just its kind builds the defaults; and the scenario JSON of each protocol is unchanged by
    /// the table (the `kind` tag with the parameters beside it; an unknown parameter is refused).
    #[test]
    fn the_protocols_table_lists_every_protocol_with_its_parameters() {
        let table = protocols_table();
        let rows = table.as_array().expect("a list");
        let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
        assert_eq!(names[..4], ["dctcp", "newreno", "dx", "dctcp-improved-fairness"]);
        let row = |n: &str| rows.iter().find(|r| r["name"] == n).unwrap().clone();
        let dctcp = row("dctcp");
        assert_eq!(dctcp["kind"], "dctcp");
        assert_eq!(
            dctcp["params"][0],
            serde_json::json!({"name": "g", "field": "g", "unit": "gain", "default": 0.0625})
        );
        assert_eq!(dctcp["params"][1]["unit"], "fraction");
        assert_eq!(dctcp["params"][1]["default"], 1.0);
        assert_eq!(dctcp["min_cwnd_pkt"], 2.0);
        assert_eq!(dctcp["facts"]["ect"], true);
        let dx = row("dx");
        assert_eq!(
            dx["params"][0],
            serde_json::json!({"name": "R0", "field": "r0", "unit": "base_rtt", "default": "min"})
        );
        assert_eq!(dx["min_cwnd_pkt"], 1.0);
        assert_eq!(row("newreno")["params"][0]["default"], false);
        assert_eq!(row("dctcp-improved-fairness")["kind"], "dctcp_improved_fairness");
        for r in rows {
            let spec: ProtocolSpec = serde_json::from_value(serde_json::json!({"kind": r["kind"]})).unwrap();
            assert_eq!(spec.name(), r["name"]);
            // The table's fields are exactly the serialised parameters (a misspelled or missing
            // `Param.field` would give Python a null default; a field missing from the table, a
            // parameter no scenario can set), each with its default.
            let mut written = serde_json::to_value(&spec).unwrap();
            let written = written.as_object_mut().unwrap();
            written.remove("kind");
            let params = r["params"].as_array().unwrap();
            let fields: std::collections::BTreeSet<&str> =
                params.iter().map(|p| p["field"].as_str().unwrap()).collect();
            assert_eq!(fields, written.keys().map(String::as_str).collect(), "{}", r["name"]);
            for p in params {
                assert!(!p["default"].is_null(), "{}: {}", r["name"], p["name"]);
                assert_eq!(written[p["field"].as_str().unwrap()], p["default"], "{}", r["name"]);
            }
            // A protocol that keeps DCTCP's alpha names its gain (the linux profile's shift check).
            assert_eq!(spec.dctcp_g().is_some(), spec.keeps_dctcp_alpha(), "{}", r["name"]);
        }
        let given: ProtocolSpec = serde_json::from_str(r#"{"kind": "dctcp", "g": 0.25, "alpha_init": 0.5}"#).unwrap();
        assert_eq!(given, ProtocolSpec::dctcp(0.25, 0.5));
        let fixed: ProtocolSpec = serde_json::from_str(r#"{"kind": "dx", "r0": {"fixed_ps": 80000000}}"#).unwrap();
        assert_eq!(fixed, ProtocolSpec::dx(BaseRttSpec::FixedPs(80_000_000)));
        let err = serde_json::from_str::<ProtocolSpec>(r#"{"kind": "newreno", "g": 0.5}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `g`"), "{err}");
        assert!(serde_json::from_str::<ProtocolSpec>(r#"{"kind": "cubic"}"#).is_err());
    }

    /// A protocol's range checks name the parameter as scenarios write it.
    #[test]
    fn range_checks_name_the_parameter() {
        let field = |n: &str| format!("flows[0].{n}");
        let e = ProtocolSpec::dctcp(0.0, 1.0).check(&field).unwrap_err().to_string();
        assert!(e.contains("flows[0].g") && e.contains("(0, 1]"), "{e}");
        let e = ProtocolSpec::dctcp_improved_fairness(0.5, 1.5).check(&field).unwrap_err().to_string();
        assert!(e.contains("flows[0].alpha_init") && e.contains("[0, 1]"), "{e}");
        let e = ProtocolSpec::dx(BaseRttSpec::FixedPs(0)).check(&field).unwrap_err().to_string();
        assert!(e.contains("flows[0].R0"), "{e}");
        assert!(ProtocolSpec::newreno(true).check(&field).is_ok());
        assert!(ProtocolSpec::dx(BaseRttSpec::Path).wants_path_rtt());
        let mut dx = ProtocolSpec::dx(BaseRttSpec::Path);
        dx.set_base_rtt(Time(5));
        assert_eq!(dx, ProtocolSpec::dx(BaseRttSpec::FixedPs(5)));
        assert_eq!(ProtocolSpec::dctcp(0.25, 1.0).dctcp_g(), Some(0.25));
        assert_eq!(ProtocolSpec::newreno(true).dctcp_g(), None);
    }

    /// The reasons errors give, stated by each protocol: why ECN-Echo never cuts its window once
    /// per window (refusing ecn_response = "prr"), and how a flow that is not ECN-capable is
    /// written (refusing ect_acks).
    #[test]
    fn each_protocol_states_the_reasons_its_errors_give() {
        assert_eq!(
            ProtocolSpec::newreno(false).no_window_cut_reason(),
            "newreno with ecn = false never sees ECN-Echo (set ecn = true)"
        );
        assert!(ProtocolSpec::dctcp_improved_fairness(0.5, 1.0).no_window_cut_reason().contains("(eq. 36)"));
        assert_eq!(
            ProtocolSpec::dx(BaseRttSpec::Min).no_window_cut_reason(),
            "protocol = dx never reduces its window on ECN"
        );
        assert_eq!(ProtocolSpec::newreno(false).not_ect_as(), " with ecn = false");
        assert_eq!(ProtocolSpec::newreno(true).not_ect_as(), "");
        assert_eq!(ProtocolSpec::dx(BaseRttSpec::Min).not_ect_as(), "");
    }

    /// Each protocol's facts as its definition states them: RFC 3168 NewReno (ECT only with
    /// `ecn`, half the window once per window), DCTCP (RFC 8257: ECT, once per window, alpha),
    /// DCTCP–Improved Fairness (eq. 36: per marked ACK), DX (no ECN, no loss response, its own
    /// window from NIC timestamps); and the spec-level questions asked of the controller.
    #[test]
    fn each_protocol_states_its_facts() {
        use EcnResponse::*;
        let dctcp = ProtocolSpec::dctcp(1.0 / 16.0, 1.0);
        let dcif = ProtocolSpec::dctcp_improved_fairness(1.0 / 16.0, 1.0);
        let dx = ProtocolSpec::dx(BaseRttSpec::Min);
        // (spec, ect, response, reacts to loss, owns window, NIC stamps, halves in CWR, has alpha, cuts on ECN)
        let cases = [
            (ProtocolSpec::newreno(false), false, OncePerWindow, true, false, false, false, false, false),
            (ProtocolSpec::newreno(true), true, OncePerWindow, true, false, false, false, false, true),
            (dctcp, true, OncePerWindow, true, false, false, true, true, true),
            (dcif, true, PerAck, true, false, false, true, true, false),
            (dx, false, None, false, true, true, false, false, false),
        ];
        for (spec, ect, resp, loss, owns, nic, halves, alpha, cuts) in cases {
            let cc = Cc::new(&spec);
            let name = spec.name();
            assert_eq!(cc.ect(), ect, "{name}");
            assert_eq!(spec.ecn_capable(), ect, "{name}");
            assert_eq!(cc.ecn_response(), resp, "{name}");
            assert_eq!(spec.cuts_on_ecn(), cuts, "{name}");
            assert_eq!(cc.reacts_to_loss(), loss, "{name}");
            assert_eq!(cc.owns_window(), owns, "{name}");
            assert_eq!(cc.nic_tx_timestamps(), nic, "{name}");
            assert_eq!(cc.halves_on_loss_in_cwr(), halves, "{name}");
            assert_eq!(!cc.alpha().is_nan(), alpha, "{name}");
            assert_eq!(spec.reads_delay(), owns, "{name}"); // DX, the one delay-based controller
        }
    }

    /// The defaults of [`Controller`] are a controller that ignores ECN and leaves the window to
    /// the transport: a new controller states only where it differs.
    #[test]
    fn a_controller_without_hooks_ignores_ecn_and_leaves_the_window_to_the_transport() {
        struct Plain;
        impl Controller for Plain {}
        let mut c = Plain;
        c.on_ack(3, true, 10, 20);
        assert!(!c.ect() && c.ecn_response() == EcnResponse::None);
        assert_eq!(c.ecn_cut(10.0), 10.0);
        assert_eq!(c.per_ack_ecn_decrease(10.0, 2), 10.0);
        assert!(c.reacts_to_loss() && !c.owns_window() && !c.nic_tx_timestamps() && !c.halves_on_loss_in_cwr());
        assert_eq!(c.on_rtt_sample(Time(5)), Option::None);
        assert!(c.window_round(10.0, 5, 9, true).is_none());
        assert!(c.alpha().is_nan() && c.base_rtt_s().is_nan());
    }
}
