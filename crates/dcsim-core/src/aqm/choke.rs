//! CHOKe (Pan, Prabhakar, Psounis, INFOCOM 2000) and the coexistence paper's modified CHOKe
//! (Irteza et al., Section IV-E), on top of RED's average queue and decision (`red.rs`).
//!
//! On each arrival (protocols.md §5, Linux `sch_choke.c` order):
//! 1. update RED's average queue q_avg;
//! 2. if q_avg > min_th and packets are waiting, draw `m` of the waiting packets uniformly at
//!    random (with replacement) and compare their flow with the arrival's;
//! 3. if they *match*, penalise the arrival and every distinct drawn packet of its flow: each is
//!    CE-marked when ECN is on and it is ECN-capable, dropped otherwise (a dropped queued packet
//!    leaves the queue at once and is never delivered; the port shifts the later departures);
//! 4. otherwise RED decides (count-spaced probabilistic mark/drop, forced above max_th);
//! 5. the buffer limit (tail drop) applies last.
//!
//! When do the drawn packets *match*? [`MatchRule::All`] is the paper's modified CHOKe: "we pick
//! 'm' packets at random from the queue and see if they belong to the same flow as the incoming
//! packet"; the rule must make "the probability of the non-dominating flow getting marked ...
//! reduced", so all m must belong to the arrival's flow: a flow holding a fraction f of the queue
//! matches with probability f^m (f^7 = 0.21 for f = 0.8, 1.3e-5 for f = 0.2). [`MatchRule::Any`]
//! is Pan et al.'s m-candidate variant (any of the m matches; probability 1 - (1-f)^m), which
//! penalises small flows *more*. With m = 1 both are classic CHOKe.
//!
//! A "flow" is a direction of a connection (the 5-tuple): data and ACKs of one connection are
//! different flows. Draws use the port's RNG stream, so runs stay bit-identical per seed.

use rand::Rng as _;
use serde::{Deserialize, Serialize};

use super::red::{self, Red};
use super::{Discipline, QueueKind, QueueView, Verdict};
use crate::error::{invalid, Result};
use crate::packet::{Kind, Packet};
use crate::params::{Param, Unit};
use crate::rng::Rng;
use crate::scenario::Amount;
use crate::units::{Rate, Time};

/// CHOKe in scenarios: `kind = "choke"`, RED's parameters (`red.rs`, the same names and
/// defaults) and `m` packets drawn per arrival, matched by `match` (`rule` in the engine);
/// `kind = "modified_choke"` is the coexistence paper's modified CHOKe (Section IV-E): m = 7,
/// `match = "all"` by default.
///
/// RED's fields are written out again (not `#[serde(flatten)]`ed from `red::Params`): serde does
/// not combine `flatten` with `deny_unknown_fields`, and a misspelled key must stay an error.
/// [`Params::red`] and `example` name every one of them, so a field added to RED and not here
/// fails to compile.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    #[serde(rename = "min_th_pkt")]
    pub min_th: f64,
    #[serde(rename = "max_th_pkt")]
    pub max_th: f64,
    pub max_p: f64,
    #[serde(default = "red::default_w_q")]
    pub w_q: f64,
    #[serde(default)]
    pub gentle: bool,
    #[serde(default = "red::yes")]
    pub ecn: bool,
    #[serde(default = "red::yes")]
    pub wait: bool,
    /// Packets drawn per arrival (1: classic CHOKe).
    #[serde(default = "one")]
    pub m: u32,
    /// When the drawn packets match the arrival.
    #[serde(default = "all")]
    pub rule: MatchRule,
}

fn one() -> u32 {
    1
}
fn all() -> MatchRule {
    MatchRule::All
}

/// RED's parameters, then m and the match rule.
const PARAMS: [Param; 9] = {
    let r = red::PARAMS;
    [
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        Param { name: "m", field: "m", unit: Unit::Count },
        Param { name: "match", field: "rule", unit: Unit::Choice(&["all", "any"]) },
    ]
};

impl Params {
    /// RED's part of the parameters.
    pub fn red(&self) -> red::Params {
        let Params { min_th, max_th, max_p, w_q, gentle, ecn, wait, .. } = *self;
        red::Params { min_th, max_th, max_p, w_q, gentle, ecn, wait }
    }
}

impl QueueKind for Params {
    const NAME: &'static str = "choke";
    const PARAMS: &'static [Param] = &PARAMS;
    const REQUIRED: &'static [&'static str] = &red::REQUIRED;
    type Discipline = Choke;

    fn example() -> Self {
        let red::Params { min_th, max_th, max_p, w_q, gentle, ecn, wait } = red::Params::example();
        Params { min_th, max_th, max_p, w_q, gentle, ecn, wait, m: one(), rule: all() }
    }
    /// The coexistence paper's modified CHOKe: m = 7 draws that must all match.
    fn presets() -> Vec<(&'static str, serde_json::Value)> {
        vec![("modified_choke", serde_json::json!({"m": 7, "rule": "all"}))]
    }
    fn discipline(&self, packet_bytes: u32, rate: Rate) -> Choke {
        Choke::new(self.red(), self.m, self.rule, packet_bytes, rate)
    }
    /// RED's checks, and 1 <= m <= buffer: m draws from at most a buffer's worth of waiting packets.
    fn check(&self, field: &dyn Fn(&str) -> String, capacity: Amount, packet_bytes: u32) -> Result<()> {
        let cap_pkt = match capacity {
            Amount::Packets(n) => n,
            Amount::Bytes(b) => b / packet_bytes.max(1) as u64,
        };
        if !(1..=cap_pkt).contains(&(self.m as u64)) {
            return Err(invalid(
                field("m"),
                format!("{} is out of range; allowed 1 <= m <= buffer ({capacity}: {cap_pkt} packets)", self.m),
            ));
        }
        self.red().check(field, capacity, packet_bytes)
    }
    fn marks_ect(&self) -> bool {
        self.ecn
    }
    fn reaches_into_queue(&self) -> bool {
        true
    }
}

/// When the `m` drawn packets count as matching the arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchRule {
    /// All m drawn packets belong to the arrival's flow (the coexistence paper, Section IV-E).
    All,
    /// At least one of them does (Pan et al.'s m-candidate CHOKe).
    Any,
}

/// The flow identity CHOKe compares: connection id and kind (TCP data or ACK, L2 frame or
/// feedback), so an L2 source and a TCP flow with the same index never match.
#[inline]
pub fn flow_key(p: &Packet) -> u64 {
    let kind = match p.kind {
        Kind::Data => 0,
        Kind::Ack => 1,
        Kind::Frame => 2,
        Kind::Feedback => 3,
    };
    ((p.flow as u64) << 2) | kind
}

/// CHOKe counters (whole run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChokeStats {
    /// Arrivals that found q_avg > min_th and drew packets.
    pub draws: u64,
    /// Arrivals whose draws matched (the arrival and its victims were penalised).
    pub matches: u64,
}

pub struct Choke {
    pub red: Red,
    /// Packets drawn per arrival (the paper's m; 1 = classic CHOKe).
    pub m: u32,
    pub rule: MatchRule,
    pub stats: ChokeStats,
    /// Waiting-queue indices (0 = next to be sent) of the packets to penalise along with the
    /// arrival, distinct, in decreasing order (so the port can remove them one by one).
    victims: Vec<usize>,
}

impl Choke {
    pub fn new(p: red::Params, m: u32, rule: MatchRule, mean_packet_bytes: u32, rate: Rate) -> Self {
        Choke {
            red: Red::new(p, mean_packet_bytes, rate),
            m,
            rule,
            stats: ChokeStats::default(),
            // (grows if ever needed: m can be up to the buffer, and a spec's facts build a Choke
            // before the buffer check; a review found m = 4e9 asking for 32 GB here)
            victims: Vec::with_capacity((m as usize).min(64)),
        }
    }

    /// What happens to a penalised packet (the arrival or a victim): CE if ECN is on and the
    /// packet is ECN-capable, else a drop.
    #[inline]
    pub fn penalty(&self, ect: bool) -> Verdict {
        if self.red.params().ecn && ect {
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }

    /// Decide on an arrival of flow `key` (see [`flow_key`]). `key_at(i)` is the flow of the
    /// i-th waiting packet, i < `q.packets`. After a match, [`Choke::take_victims`] holds the
    /// waiting packets to penalise too.
    pub fn admit(
        &mut self,
        q: QueueView,
        key: u64,
        ect: bool,
        now: Time,
        rng: &mut Rng,
        key_at: impl Fn(usize) -> u64,
    ) -> Verdict {
        self.victims.clear();
        self.red.update_avg(q, now);
        if self.red.avg > self.red.params().min_th && q.packets > 0 {
            self.stats.draws += 1;
            let n = q.packets as usize;
            let mut all = true;
            for _ in 0..self.m {
                let i = rng.random_range(0..n);
                if key_at(i) == key {
                    self.victims.push(i);
                } else {
                    all = false;
                }
            }
            let matched = match self.rule {
                MatchRule::All => all,
                MatchRule::Any => !self.victims.is_empty(),
            };
            if matched {
                self.stats.matches += 1;
                self.victims.sort_unstable_by(|a, b| b.cmp(a));
                self.victims.dedup();
                return self.penalty(ect);
            }
            self.victims.clear();
        }
        self.red.decide(q, ect, rng)
    }

    /// The victims of the last match (emptied; give the buffer back with [`Choke::put_victims`]).
    pub fn take_victims(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.victims)
    }

    /// Return the buffer taken by [`Choke::take_victims`] (keeps its allocation).
    pub fn put_victims(&mut self, mut v: Vec<usize>) {
        v.clear();
        self.victims = v;
    }
}

/// RED's average and count (CHOKe keeps RED's state). Seen through a view only, CHOKe finds no
/// packet to compare with: RED's decision. The port never takes this path; it calls
/// [`Choke::admit`] with its waiting packets.
impl Discipline for Choke {
    fn admit(&mut self, q: QueueView, ect: bool, now: Time, rng: &mut Rng) -> Verdict {
        Choke::admit(self, q, u64::MAX, ect, now, rng, |_| u64::MAX - 1)
    }

    fn keeps_average(&self) -> bool {
        true
    }

    fn on_tail_drop(&mut self) {
        self.red.restart_count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    /// w_q = 1: the average is the instantaneous queue, so the gating is easy to place.
    fn params(ecn: bool) -> red::Params {
        red::Params { min_th: 5.0, max_th: 200.0, max_p: 1e-9, w_q: 1.0, gentle: false, ecn, wait: true }
    }
    fn choke(m: u32, rule: MatchRule, ecn: bool) -> Choke {
        Choke::new(params(ecn), m, rule, 1500, Rate(1_000_000_000))
    }
    fn view(p: u64) -> QueueView {
        QueueView { packets: p, bytes: p * 1500, idle_since: None }
    }

    #[test]
    fn no_draw_while_average_is_at_or_below_min_th() {
        // Every waiting packet is of the arrival's flow, but q_avg = 5 = min_th: no draw, RED admits.
        let mut c = choke(1, MatchRule::All, true);
        let mut rng = stream(1, Stream::Port, 0);
        for _ in 0..100 {
            assert_eq!(c.admit(view(5), 7, true, Time(0), &mut rng, |_| 7), Verdict::Enqueue);
            assert!(c.take_victims().is_empty());
        }
        assert_eq!(c.stats.draws, 0);
        // Just above: every arrival draws and matches.
        assert_eq!(c.admit(view(6), 7, true, Time(0), &mut rng, |_| 7), Verdict::Mark);
        assert_eq!(c.stats, ChokeStats { draws: 1, matches: 1 });
    }

    #[test]
    fn a_match_penalises_the_arrival_and_the_drawn_packet() {
        let mut rng = stream(2, Stream::Port, 0);
        // ECN on, ECN-capable arrival: marked; the victim index is a waiting packet of the same flow.
        let mut c = choke(1, MatchRule::All, true);
        let keys = [1u64, 3, 3, 1, 3, 3, 3, 1, 3, 3];
        let mut seen = std::collections::HashSet::new();
        for _ in 0..400 {
            let v = c.admit(view(10), 3, true, Time(0), &mut rng, |i| keys[i]);
            let victims = c.take_victims();
            match v {
                Verdict::Mark => {
                    assert_eq!(victims.len(), 1);
                    assert_eq!(keys[victims[0]], 3);
                    seen.insert(victims[0]);
                }
                Verdict::Enqueue => assert!(victims.is_empty()),
                Verdict::Drop => panic!("max_p ~ 0 and below max_th: RED never drops"),
            }
            c.put_victims(victims);
        }
        // Every waiting packet of flow 3 was a victim at some point; flow-1 packets never were.
        assert_eq!(seen, [1, 2, 4, 5, 6, 8, 9].into_iter().collect());
        // Without ECN (or for a packet that is not ECN-capable) the penalty is a drop.
        let mut c = choke(1, MatchRule::All, false);
        assert_eq!(c.admit(view(10), 3, true, Time(0), &mut rng, |_| 3), Verdict::Drop);
        let c2 = choke(1, MatchRule::All, true);
        assert_eq!((c2.penalty(true), c2.penalty(false)), (Verdict::Mark, Verdict::Drop));
    }

    #[test]
    fn m_draws_match_with_probability_f_to_the_m_or_one_minus_complement() {
        // A queue of 10 packets, 8 of the arrival's flow (f = 0.8), m = 7, draws with replacement:
        // rule All matches with probability 0.8^7 = 0.2097, rule Any with 1 - 0.2^7 = 0.99999.
        // n = 50 000 arrivals: binomial sd of the fraction sqrt(p(1-p)/n) = 0.0018 (All); we allow
        // 5 sd (the seed is fixed, so this is deterministic; 5 sd leaves room for any seed).
        let keys = [5u64, 5, 9, 5, 5, 5, 9, 5, 5, 5];
        let n = 50_000;
        for (rule, p) in [(MatchRule::All, 0.8f64.powi(7)), (MatchRule::Any, 1.0 - 0.2f64.powi(7))] {
            let mut c = choke(7, rule, true);
            let mut rng = stream(3, Stream::Port, 1);
            let mut victims_total = 0usize;
            for _ in 0..n {
                c.admit(view(10), 5, true, Time(0), &mut rng, |i| keys[i]);
                let v = c.take_victims();
                // distinct, decreasing, all of the arrival's flow
                assert!(v.windows(2).all(|w| w[0] > w[1]));
                assert!(v.iter().all(|&i| keys[i] == 5));
                victims_total += v.len();
                c.put_victims(v);
            }
            let frac = c.stats.matches as f64 / n as f64;
            let sd = (p * (1.0 - p) / n as f64).sqrt().max(1e-4);
            assert!((frac - p).abs() < 5.0 * sd, "{rule:?}: match fraction {frac}, expected {p}");
            assert!(victims_total > 0);
        }
        // The arrival of a flow holding 2 of 10 packets (f = 0.2) almost never matches under All.
        let mut c = choke(7, MatchRule::All, true);
        let mut rng = stream(4, Stream::Port, 0);
        for _ in 0..n {
            c.admit(view(10), 9, true, Time(0), &mut rng, |i| keys[i]);
        }
        // expected 0.2^7 n = 0.064 matches
        assert!(c.stats.matches <= 2, "{} matches", c.stats.matches);
    }

    #[test]
    fn unmatched_arrivals_get_reds_decision() {
        // Above max_th RED forces a mark (ECN) whatever CHOKe drew.
        let mut p = params(true);
        p.max_th = 8.0;
        let mut c = Choke::new(p, 1, MatchRule::All, 1500, Rate(1_000_000_000));
        let mut rng = stream(5, Stream::Port, 0);
        assert_eq!(c.admit(view(10), 1, true, Time(0), &mut rng, |_| 2), Verdict::Mark);
        assert!(c.take_victims().is_empty());
        assert_eq!(c.admit(view(10), 1, false, Time(0), &mut rng, |_| 2), Verdict::Drop);
        assert_eq!(c.stats.matches, 0);
    }

    #[test]
    fn flow_key_separates_directions() {
        let d = Packet {
            kind: Kind::Data,
            flow: 4,
            src: 0,
            dst: 1,
            size: 1500,
            seq: 0,
            ect: true,
            ce: false,
            ece: false,
            ts: Time(0),
            aux: 0,
        };
        let a = Packet { kind: Kind::Ack, ..d };
        assert_ne!(flow_key(&d), flow_key(&a));
        assert_eq!(flow_key(&d), flow_key(&Packet { seq: 9, ..d }));
    }
}
