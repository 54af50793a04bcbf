//! Drop-tail: admit everything that fits; the buffer limit (checked by the port) drops the rest.

use serde::{Deserialize, Serialize};

use super::{Discipline, QueueKind, QueueView, Verdict};
use crate::error::Result;
use crate::params::Param;
use crate::rng::Rng;
use crate::scenario::Amount;
use crate::units::{Rate, Time};

/// Drop-tail in scenarios: `kind = "droptail"`, no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {}

impl QueueKind for Params {
    const NAME: &'static str = "droptail";
    const PARAMS: &'static [Param] = &[];
    type Discipline = DropTail;

    fn example() -> Self {
        Params {}
    }
    fn discipline(&self, _packet_bytes: u32, _rate: Rate) -> DropTail {
        DropTail
    }
    /// Nothing to check.
    fn check(&self, _field: &dyn Fn(&str) -> String, _capacity: Amount, _packet_bytes: u32) -> Result<()> {
        Ok(())
    }
}

pub struct DropTail;

impl Discipline for DropTail {
    #[inline]
    fn admit(&mut self, _q: QueueView, _ect: bool, _now: Time, _rng: &mut Rng) -> Verdict {
        Verdict::Enqueue
    }
}
