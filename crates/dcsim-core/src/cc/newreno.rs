//! TCP NewReno's congestion response to ECN (RFC 3168): halve the window, at most once per
//! window. Its loss response (RFC 5681/6582) lives in `transport/tcp.rs`, shared with DCTCP.

use serde::{Deserialize, Serialize};

use super::{Controller, EcnResponse, Param, Protocol, ProtocolSpec, Unit};
use crate::error::Result;

/// NewReno in scenarios: `protocol = "newreno"`, ECN-capable with `ecn = true`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// ECN-capable (RFC 3168: half the window on ECN-Echo, once per window); default false.
    pub ecn: bool,
}

impl Protocol for Params {
    const NAME: &'static str = "newreno";
    const PARAMS: &'static [Param] = &[Param { name: "ecn", field: "ecn", unit: Unit::Flag }];
    type Controller = NewReno;

    fn controller(&self) -> NewReno {
        NewReno { ecn: self.ecn, whole_segments: false }
    }
    /// A flag has no range.
    fn check(&self, _field: &dyn Fn(&str) -> String) -> Result<()> {
        Ok(())
    }
    fn why_no_window_cut(&self) -> Option<&'static str> {
        Some("newreno with ecn = false never sees ECN-Echo (set ecn = true)")
    }
    fn not_ect_as(&self) -> &'static str {
        if self.ecn {
            ""
        } else {
            " with ecn = false"
        }
    }
}

impl ProtocolSpec {
    /// NewReno, ECN-capable if `ecn`.
    pub fn newreno(ecn: bool) -> Self {
        ProtocolSpec::Newreno(Params { ecn })
    }
}

pub struct NewReno {
    /// ECN-capable (RFC 3168); without it, a marking queue drops this flow's packets.
    pub ecn: bool,
    /// Whole segments, as Linux's `tcp_reno_ssthresh` (the linux profile).
    pub whole_segments: bool,
}

impl Controller for NewReno {
    fn ect(&self) -> bool {
        self.ecn
    }

    fn ecn_response(&self) -> EcnResponse {
        EcnResponse::OncePerWindow
    }

    /// Half the window: RFC 3168's response; Linux's `tcp_reno_ssthresh`, max(cwnd >> 1, 2), on
    /// whole segments (the linux profile had kept the fraction: CWR ended at 26.577 for 53.15
    /// where Linux gives 26; an audit).
    #[inline]
    fn ecn_cut(&self, cwnd: f64) -> f64 {
        if self.whole_segments {
            ((cwnd.floor().max(0.0) as u64) >> 1).max(2) as f64
        } else {
            cwnd / 2.0
        }
    }

    fn use_linux_reno(&mut self) {
        self.whole_segments = true;
    }
}
