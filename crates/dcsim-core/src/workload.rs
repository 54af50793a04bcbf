//! Flow arrivals: Poisson short flows at a target load with a size distribution, and incast rounds.
//!
//! A generator is family-neutral: it emits [`FlowRequest`]s (source, destination, size, class)
//! and knows nothing of transports. The simulator turns a request into an endpoint of the class
//! (a TCP flow with the class's controller today; a rate-based source can be another class kind)
//! and tells the generator when a flow completes (incast rounds wait for their responses).
//!
//! * **Poisson**: flows arrive with exponential inter-arrival times of mean 1/lambda, where
//!   lambda = load * C / (8 * E[S]) makes the offered payload rate `load` of the named link's
//!   capacity C (S13 `traffic_gen.py`: mean gap = avg_size * 8 / (bandwidth * load)). Each arrival
//!   draws its size from the distribution, its class by share, its source uniformly among the
//!   senders (in proportion to their host-link rates when the load refers to those and they
//!   differ: [`Generator::weight_senders`]) and its destination uniformly among the receivers
//!   other than the source. Arrivals fall in [start, stop). Sizes are payload bytes, so `load`
//!   is of payload: each packet adds its header on the wire, and the link carries load x
//!   (E[S] + header x E[packets]) / E[S] of its capacity ([`SizeSpec::mean_packets`]; 1.027 x at
//!   1460 B of payload per 40 B header, 1.4 x with 100 B flows).
//! * **Incast**: a client requests `total / n` bytes from each of n servers at once (the first
//!   `total mod n` servers send one byte more, so the round moves exactly `total`); the next round
//!   starts when the last response of this one has completed, plus `gap`. The request messages
//!   themselves are not simulated: a round's responses all start at the round's start.
//! * **Permutation**: at `start`, every sender starts one flow to its partner under a random
//!   permutation: a bijection from the senders to the receivers that maps no host to itself
//!   (a derangement when the two lists are the same hosts), drawn uniformly by shuffling the
//!   receivers until no sender meets itself (Fisher-Yates; a derangement of n hosts comes up with
//!   probability ~1/e per shuffle). The classic ECMP test (Hedera, Al-Fares et al. 2010; htsim's
//!   permutation connection matrix, Raiciu et al. 2011): every sender's host link carries one
//!   flow out and every receiver's one flow in, so any loss of throughput is a collision of flows
//!   hashed onto the same fabric link. A flow carries `size`
//!   bytes, or is long-lived (runs to the end) without one. With several classes, each gets its
//!   share of the senders to within one sender (see [`class_by_midpoint`]), the senders taken in
//!   a seeded random order.
//! * **Sizes**: fixed, uniform on [a, b] (whole bytes), or an empirical CDF given as points
//!   (size_bytes, P(S <= size)), sampled by linear interpolation between the points on a uniform
//!   percentile (S13 `custom_rand.py`); below the first point's probability the first size is
//!   taken. Samples are rounded to whole bytes, at least 1.
//!
//! Each generator has its own RNG stream (`Stream::Workload`, keyed by the workload's index), so
//! runs are bit-identical per seed and a workload added after the others does not change their
//! draws (one inserted before them shifts their indices, and so their streams).

use rand::seq::SliceRandom as _;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

use crate::error::{invalid, Result};
use crate::packet::NodeId;
use crate::rng::{stream, Rng, Stream};
use crate::scenario::{DelayedAckSpec, FlowSpec, PortRef, ProtocolSpec, TcpSpec};
use crate::units::Time;

fn default_init_cwnd() -> f64 {
    10.0
}

/// A class of generated flows: its share of the arrivals (or of the incast servers) and the
/// endpoint the simulator instantiates for it (a TCP flow: controller and options).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    pub share: f64,
    pub protocol: ProtocolSpec,
    /// Window floor, packets (None: the protocol's default, see `ProtocolSpec::default_min_cwnd_pkt`).
    #[serde(default)]
    pub min_cwnd_pkt: Option<f64>,
    #[serde(default = "default_init_cwnd")]
    pub init_cwnd_pkt: f64,
    #[serde(default)]
    pub min_rto_ps: Option<u64>,
    #[serde(default)]
    pub delayed_ack: Option<DelayedAckSpec>,
    #[serde(default)]
    pub tcp: TcpSpec,
}

impl ClassSpec {
    /// The flow the simulator builds for a request of this class.
    pub fn flow_spec(&self, src: String, dst: String, start_ps: u64, size_bytes: Option<u64>) -> FlowSpec {
        FlowSpec {
            src,
            dst,
            protocol: self.protocol.clone(),
            start_ps,
            start_jitter_ps: 0,
            size_bytes,
            min_cwnd_pkt: self.min_cwnd_pkt,
            init_cwnd_pkt: self.init_cwnd_pkt,
            min_rto_ps: self.min_rto_ps,
            delayed_ack: self.delayed_ack.clone(),
            tcp: self.tcp.clone(),
        }
    }
}

/// Flow size distribution, payload bytes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeSpec {
    Fixed {
        bytes: u64,
    },
    /// Whole bytes, uniform on [min_bytes, max_bytes].
    Uniform {
        min_bytes: u64,
        max_bytes: u64,
    },
    /// Empirical CDF: (size_bytes, cumulative probability), both non-decreasing, ending at 1.
    Cdf {
        points: Vec<(f64, f64)>,
    },
}

/// Largest flow a workload may generate, bytes (as for listed flows).
const MAX_SIZE_BYTES: f64 = crate::scenario::MAX_FLOW_BYTES as f64;

impl SizeSpec {
    /// Check the distribution (`field` = its path, e.g. "workloads[0].sizes").
    pub fn validate(&self, field: &str) -> Result<()> {
        let top = crate::scenario::MAX_FLOW_BYTES;
        match self {
            SizeSpec::Fixed { bytes } => {
                if !(1..=top).contains(bytes) {
                    return Err(invalid(
                        format!("{field}.size"),
                        format!("{bytes} bytes is out of range; allowed 1 ..= {top}"),
                    ));
                }
            }
            SizeSpec::Uniform { min_bytes, max_bytes } => {
                if !(1..=top).contains(min_bytes) {
                    return Err(invalid(
                        format!("{field}.min"),
                        format!("{min_bytes} bytes is out of range; allowed 1 ..= {top}"),
                    ));
                }
                if !(*min_bytes..=top).contains(max_bytes) {
                    return Err(invalid(
                        format!("{field}.max"),
                        format!("{max_bytes} bytes is out of range; allowed min ({min_bytes}) ..= {top}"),
                    ));
                }
            }
            SizeSpec::Cdf { points } => {
                let f = |i: usize| format!("{field}.points[{i}]");
                if points.is_empty() {
                    return Err(invalid(format!("{field}.points"), "an empirical CDF needs at least one point"));
                }
                for (i, &(s, p)) in points.iter().enumerate() {
                    if !(s.is_finite() && (0.0..=MAX_SIZE_BYTES).contains(&s)) {
                        return Err(invalid(f(i), format!("size {s} is out of range; allowed 0 ..= {top} bytes")));
                    }
                    if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
                        return Err(invalid(f(i), format!("probability {p} is out of range; allowed [0, 1]")));
                    }
                    if i > 0 {
                        let (s0, p0) = points[i - 1];
                        if s < s0 || p < p0 {
                            return Err(invalid(
                                f(i),
                                format!("({s}, {p}) after ({s0}, {p0}): the CDF is not monotone (sizes and probabilities must not decrease)"),
                            ));
                        }
                    }
                }
                let last = points[points.len() - 1].1;
                if (last - 1.0).abs() > 1e-9 {
                    return Err(invalid(f(points.len() - 1), format!("the CDF ends at {last}, not at 1")));
                }
                if points.iter().all(|&(s, _)| s < 0.5) {
                    return Err(invalid(format!("{field}.points"), "every size is below 1 byte"));
                }
            }
        }
        Ok(())
    }

    /// E[S] of the sizes as [`Self::sample`] draws them (whole bytes, at least 1), bytes: the
    /// mean a Poisson workload's arrival rate divides its offered load by.
    ///
    /// For a CDF: an atom at the first size, then each segment uniform between its end points,
    /// each value rounded to whole bytes and raised to 1 B (by [`sampled_segment_mean`]). The
    /// rounding moves the mean by < 0.5 B; the raise to 1 B does not vanish: a CDF with 90 % of
    /// its mass at 0 B has mean 0.5 B before it and draws ~1.4 B (a review: the realised load was
    /// 2.87 % of an offered 1 %).
    pub fn mean_bytes(&self) -> f64 {
        match self {
            SizeSpec::Fixed { bytes } => *bytes as f64,
            SizeSpec::Uniform { min_bytes, max_bytes } => (*min_bytes as f64 + *max_bytes as f64) / 2.0,
            SizeSpec::Cdf { points } => {
                let mut m = points[0].1 * sampled_segment_mean(points[0].0, points[0].0);
                for w in points.windows(2) {
                    m += (w[1].1 - w[0].1) * sampled_segment_mean(w[0].0, w[1].0);
                }
                m
            }
        }
    }

    /// E[ceil(S / mss)] of the sizes as [`Self::sample`] draws them: the mean number of packets
    /// of a flow whose packets carry `mss_bytes` of payload each (each adds its header on the
    /// wire, so a workload's wire bytes are E[S] + header x this per flow).
    ///
    /// For a CDF segment uniform on [a, b] and rounded to whole bytes (at least 1):
    /// ceil(max(round(x), 1) / mss) = ceil((x - 1/2) / mss), or 1 where x <= 1/2, whose mean over
    /// the segment is exact through the integral of the ceiling ([`ceil_integral`]).
    pub fn mean_packets(&self, mss_bytes: u64) -> f64 {
        let m = mss_bytes.max(1);
        match self {
            SizeSpec::Fixed { bytes } => bytes.div_ceil(m) as f64,
            SizeSpec::Uniform { min_bytes, max_bytes } => {
                // sum of ceil(s / m) over s = 1 ..= n: full blocks of m sizes, then the rest
                let upto = |n: u64| -> u128 {
                    let (q, r) = ((n / m) as u128, (n % m) as u128);
                    m as u128 * q * (q + 1) / 2 + r * (q + 1)
                };
                let n = (max_bytes - min_bytes + 1) as f64;
                (upto(*max_bytes) - upto(min_bytes.saturating_sub(1))) as f64 / n
            }
            SizeSpec::Cdf { points } => {
                let seg = |a: f64, b: f64| -> f64 {
                    if b <= a {
                        return ((a.round().max(1.0)) / m as f64).ceil();
                    }
                    let g = |x: f64| ceil_integral(x - 0.5, m as f64);
                    let at_one = ((0.5f64.min(b) - a) / (b - a)).clamp(0.0, 1.0);
                    (g(b) - g(a)) / (b - a) + at_one
                };
                let mut k = points[0].1 * seg(points[0].0, points[0].0);
                for w in points.windows(2) {
                    k += (w[1].1 - w[0].1) * seg(w[0].0, w[1].0);
                }
                k
            }
        }
    }

    /// E[S^2] of the sizes before rounding to whole bytes, bytes^2 (for the variance of the
    /// realised load: a tolerance, where the rounding's < 0.5 B does not matter).
    pub fn second_moment(&self) -> f64 {
        match self {
            SizeSpec::Fixed { bytes } => (*bytes as f64).powi(2),
            SizeSpec::Uniform { min_bytes, max_bytes } => {
                let (a, b) = (*min_bytes as f64, *max_bytes as f64);
                (a * a + a * b + b * b) / 3.0
            }
            SizeSpec::Cdf { points } => {
                let mut m = points[0].0.powi(2) * points[0].1;
                for w in points.windows(2) {
                    let (a, b) = (w[0].0, w[1].0);
                    m += (w[1].1 - w[0].1) * (a * a + a * b + b * b) / 3.0;
                }
                m
            }
        }
    }

    /// One size, whole bytes >= 1.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match self {
            SizeSpec::Fixed { bytes } => *bytes,
            SizeSpec::Uniform { min_bytes, max_bytes } => rng.random_range(*min_bytes..=*max_bytes),
            SizeSpec::Cdf { points } => {
                let u: f64 = rng.random();
                cdf_inverse(points, u).round().max(1.0) as u64
            }
        }
    }
}

/// E[max(round(X), 1)] for X uniform on [a, b] (0 <= a <= b; the point a if a == b), bytes: the
/// mean of a CDF segment's sizes as [`SizeSpec::sample`] draws them. round(x) - x is periodic
/// with period 1 and mean 0, so the mean is (a + b) / 2 plus (P(b) - P(a)) / (b - a), with P the
/// integral of round(t) - t from 0 (bounded by 1/8), plus the share of [a, b] below 0.5 B, which
/// rounds to 0 and is raised to 1.
fn sampled_segment_mean(a: f64, b: f64) -> f64 {
    if b <= a {
        return a.round().max(1.0);
    }
    // P(x) = integral over [0, x] of (round(t) - t) dt, on one period y = x - floor(x).
    let p = |x: f64| {
        let y = x - x.floor();
        if y < 0.5 {
            -y * y / 2.0
        } else {
            -0.125 + (y - 0.5) - (y * y - 0.25) / 2.0
        }
    };
    let below_half = (b.min(0.5) - a.min(0.5)).max(0.0);
    (a + b) / 2.0 + (p(b) - p(a) + below_half) / (b - a)
}

/// The integral of ceil(t / m) over [0, y] (0 for y <= 0): q full steps of width m (heights 1 ..
/// q), then height q + 1 over the rest, q = floor(y / m).
fn ceil_integral(y: f64, m: f64) -> f64 {
    if y <= 0.0 {
        return 0.0;
    }
    let q = (y / m).floor();
    m * q * (q + 1.0) / 2.0 + (y - q * m) * (q + 1.0)
}

/// The size at percentile `u` of a piecewise-linear CDF (`points` validated).
pub fn cdf_inverse(points: &[(f64, f64)], u: f64) -> f64 {
    // First point whose probability exceeds u: u lies in the segment ending there.
    let i = points.partition_point(|&(_, p)| p <= u);
    if i == 0 {
        return points[0].0;
    }
    if i >= points.len() {
        return points[points.len() - 1].0;
    }
    let (s0, p0) = points[i - 1];
    let (s1, p1) = points[i];
    s0 + (s1 - s0) * (u - p0) / (p1 - p0)
}

/// A workload of the scenario.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadSpec {
    Poisson {
        /// Offered load: the generated payload rate as a fraction of `link`'s capacity, in (0, 1).
        load: f64,
        /// The link (its egress port `from -> to`) whose capacity the load refers to; None: the
        /// senders' host links (all-to-all on a fabric: lambda = load x the senders' summed
        /// host-link rate / (8 E[S]), so each host link carries `load` on average).
        #[serde(default)]
        link: Option<PortRef>,
        sizes: SizeSpec,
        senders: Vec<String>,
        receivers: Vec<String>,
        classes: Vec<ClassSpec>,
        #[serde(default)]
        start_ps: u64,
        /// End of the arrivals (default: the end of the run).
        #[serde(default)]
        stop_ps: Option<u64>,
    },
    Incast {
        client: String,
        servers: Vec<String>,
        /// Bytes per round, split over the servers.
        total_bytes: u64,
        rounds: u64,
        #[serde(default)]
        gap_ps: u64,
        #[serde(default)]
        start_ps: u64,
        classes: Vec<ClassSpec>,
    },
    /// Flows replayed from a list (a trace): each starts at its time, between its hosts, with its
    /// size; its class is drawn by share, as a Poisson arrival's, among the classes of the protocol
    /// the list names for it (`arrivals.protocol`; no draw where one class has it), or among all.
    Trace {
        arrivals: TraceArrivals,
        classes: Vec<ClassSpec>,
        /// The workload's `start`, already added to every arrival's time: only its arrival window
        /// [start, end) in the workloads table (`window_s`) reads it.
        #[serde(default)]
        start_ps: u64,
    },
    /// One flow from every sender to its partner under a random permutation (module docs).
    Permutation {
        senders: Vec<String>,
        receivers: Vec<String>,
        /// Payload bytes of every flow; None: long-lived (to the end of the run).
        #[serde(default)]
        size_bytes: Option<u64>,
        #[serde(default)]
        start_ps: u64,
        classes: Vec<ClassSpec>,
    },
}

/// One flow of a trace workload (a row of [`TraceArrivals`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TraceArrival {
    pub at_ps: u64,
    pub src: String,
    pub dst: String,
    pub size_bytes: u64,
    /// The protocol whose classes it is drawn among (its name, e.g. "dctcp"); None: all classes.
    pub protocol: Option<String>,
}

impl TraceArrival {
    /// A flow of `size_bytes` from `src` to `dst` at `at_ps`, naming no protocol.
    pub fn new(at_ps: u64, src: &str, dst: &str, size_bytes: u64) -> TraceArrival {
        TraceArrival { at_ps, src: src.into(), dst: dst.into(), size_bytes, protocol: None }
    }
}

/// The flows of a trace workload, by columns: flow `j` starts at `at_ps[j]`, from host
/// `hosts[src[j]]` to host `hosts[dst[j]]`, with `size_bytes[j]` bytes of payload. A million
/// flows are ~30 MB of JSON this way, against ~70 MB as a table per flow, and host names are
/// resolved once each. `protocol`, if given (one entry per flow), names flow `j`'s protocol, an
/// index into `protocols` (null: none): its class is drawn only among the workload's classes of
/// that protocol, so a trace written from a run of a mix replays each flow with its protocol (and
/// exactly, where one class has it). Validation checks that the columns have one entry per flow,
/// that every index names a host or a protocol, and that a class has each protocol named
/// (`scenario::Spec::validate`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceArrivals {
    pub hosts: Vec<String>,
    pub at_ps: Vec<u64>,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub size_bytes: Vec<u64>,
    /// Each flow's protocol (index into `protocols`; None: any), or empty: none named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protocol: Vec<Option<u32>>,
    /// The protocols named, by name (`ProtocolSpec::name`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protocols: Vec<String>,
}

impl TraceArrivals {
    /// Flows listed (the length of `at_ps`; [`Self::check`] makes the other columns agree).
    pub fn len(&self) -> usize {
        self.at_ps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at_ps.is_empty()
    }

    /// Append one flow, its hosts by name.
    pub fn push(&mut self, a: TraceArrival) {
        let mut index = |name: String| match self.hosts.iter().position(|h| *h == name) {
            Some(i) => i as u32,
            None => {
                self.hosts.push(name);
                (self.hosts.len() - 1) as u32
            }
        };
        let (src, dst) = (index(a.src), index(a.dst));
        if a.protocol.is_some() || !self.protocol.is_empty() {
            self.protocol.resize(self.at_ps.len(), None); // the flows listed before the first named: none
            let p = a.protocol.map(|name| match self.protocols.iter().position(|q| *q == name) {
                Some(i) => i as u32,
                None => {
                    self.protocols.push(name);
                    (self.protocols.len() - 1) as u32
                }
            });
            self.protocol.push(p);
        }
        self.at_ps.push(a.at_ps);
        self.src.push(src);
        self.dst.push(dst);
        self.size_bytes.push(a.size_bytes);
    }

    /// The columns agree: as many entries as flows, every host index within `hosts`. Err: the
    /// field (relative to `arrivals`) and what is wrong.
    pub fn check(&self) -> std::result::Result<(), (String, String)> {
        let n = self.len();
        for (name, len) in [("src", self.src.len()), ("dst", self.dst.len()), ("size_bytes", self.size_bytes.len())] {
            if len != n {
                return Err((format!(".{name}"), format!("{len} entries for {n} flows (at_ps); give one per flow")));
            }
        }
        if !self.protocol.is_empty() && self.protocol.len() != n {
            let len = self.protocol.len();
            return Err((
                ".protocol".into(),
                format!("{len} entries for {n} flows (at_ps); give one per flow, or none"),
            ));
        }
        if let Some(j) = self.protocol.iter().position(|p| p.is_some_and(|p| p as usize >= self.protocols.len())) {
            return Err((
                format!(".protocol[{j}]"),
                format!(
                    "protocol index {} is out of range; allowed 0 ..= {} (protocols) or null",
                    self.protocol[j].expect("found"),
                    self.protocols.len() as i64 - 1
                ),
            ));
        }
        for (j, (&s, &d)) in self.src.iter().zip(&self.dst).enumerate() {
            for (end, i) in [("src", s), ("dst", d)] {
                if i as usize >= self.hosts.len() {
                    return Err((
                        format!("[{j}].{end}"),
                        format!(
                            "host index {i} is out of range; allowed 0 ..= {} (hosts)",
                            self.hosts.len() as i64 - 1
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Flow `j` as a row (after [`Self::check`]).
    pub fn get(&self, j: usize) -> TraceArrival {
        TraceArrival {
            at_ps: self.at_ps[j],
            src: self.hosts[self.src[j] as usize].clone(),
            dst: self.hosts[self.dst[j] as usize].clone(),
            size_bytes: self.size_bytes[j],
            protocol: self.protocol_of(j).map(|p| self.protocols[p as usize].clone()),
        }
    }

    /// The index into `protocols` of the protocol the list names for flow `j` (after [`Self::check`]).
    pub fn protocol_of(&self, j: usize) -> Option<u32> {
        self.protocol.get(j).copied().flatten()
    }
}

impl FromIterator<TraceArrival> for TraceArrivals {
    fn from_iter<I: IntoIterator<Item = TraceArrival>>(rows: I) -> Self {
        let mut out = TraceArrivals::default();
        for a in rows {
            out.push(a);
        }
        out
    }
}

impl WorkloadSpec {
    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadSpec::Poisson { .. } => "poisson",
            WorkloadSpec::Incast { .. } => "incast",
            WorkloadSpec::Trace { .. } => "trace",
            WorkloadSpec::Permutation { .. } => "permutation",
        }
    }

    pub fn classes(&self) -> &[ClassSpec] {
        match self {
            WorkloadSpec::Poisson { classes, .. }
            | WorkloadSpec::Incast { classes, .. }
            | WorkloadSpec::Trace { classes, .. }
            | WorkloadSpec::Permutation { classes, .. } => classes,
        }
    }

    /// Most flows this workload can generate in a run of `duration_ps` whose link `rate_bps` it
    /// loads (Poisson: the mean plus 6 standard deviations of the count; incast: rounds x n).
    pub fn max_flows(&self, duration_ps: u64, rate_bps: u64) -> f64 {
        match self {
            WorkloadSpec::Poisson { load, sizes, start_ps, stop_ps, .. } => {
                let end = stop_ps.unwrap_or(duration_ps).min(duration_ps);
                let window_s = end.saturating_sub(*start_ps) as f64 / Time::PS_PER_S as f64;
                let mean = load * rate_bps as f64 / (8.0 * sizes.mean_bytes()) * window_s;
                mean + 6.0 * mean.sqrt() + 1.0
            }
            WorkloadSpec::Incast { servers, rounds, .. } => *rounds as f64 * servers.len() as f64,
            // Only the flows due before the end start.
            WorkloadSpec::Trace { arrivals, .. } => arrivals.at_ps.iter().filter(|&&t| t < duration_ps).count() as f64,
            WorkloadSpec::Permutation { senders, .. } => senders.len() as f64,
        }
    }
}

/// Check the classes of workload `field`: shares in (0, 1] adding up to 1, TCP options in range.
pub fn validate_classes(field: &str, classes: &[ClassSpec]) -> Result<()> {
    if classes.is_empty() {
        return Err(invalid(format!("{field}.mix"), "no classes: give a protocol, or a mix of protocols with shares"));
    }
    let mut sum = 0.0;
    for (i, c) in classes.iter().enumerate() {
        if !(c.share.is_finite() && c.share > 0.0 && c.share <= 1.0) {
            return Err(invalid(
                format!("{field}.mix[{i}].share"),
                format!("{} is out of range; allowed (0, 1]", c.share),
            ));
        }
        sum += c.share;
        // The same checks as a listed flow's.
        let probe = c.flow_spec("a".into(), "b".into(), 0, Some(1));
        crate::scenario::validate_flow_options(&probe, &|n: &str| format!("{field}.mix[{i}].{n}"))?;
    }
    if (sum - 1.0).abs() > 1e-6 {
        return Err(invalid(format!("{field}.mix"), format!("the shares add up to {sum}; they must add up to 1")));
    }
    Ok(())
}

/// What a generator asks the simulator to start now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowRequest {
    pub src: NodeId,
    pub dst: NodeId,
    /// Payload bytes; None: long-lived.
    pub size_bytes: Option<u64>,
    /// Index into the workload's classes.
    pub class: u32,
    /// Incast round (None for Poisson arrivals).
    pub round: Option<u32>,
}

/// One incast round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundRecord {
    pub round: u32,
    pub start: Time,
    /// When its last response completed (None: still running at the end of the run).
    pub end: Option<Time>,
    pub responses: u32,
    pub bytes: u64,
}

/// The class of member `i` of `n` (an incast's servers, a permutation's ranked senders) under
/// cumulative shares: the one whose cumulative share interval holds the member's midpoint
/// (i + 1/2) / n. Class j thus gets r(n C_j) - r(n C_(j-1)) members, C the cumulative shares and
/// r the nearest integer (halves down): within one member of its quota n s_j (cumulative rounding, not largest remainder:
/// shares 0.34 / 0.33 / 0.33 of 4 servers give 1 / 2 / 1, where largest remainder gives 2 / 1 / 1).
fn class_by_midpoint(cum_shares: &[f64], i: usize, n: usize) -> u32 {
    pick_class(cum_shares, (i as f64 + 0.5) / n as f64)
}

fn pick_class(cum_shares: &[f64], u: f64) -> u32 {
    cum_shares.iter().position(|&c| u < c).unwrap_or(cum_shares.len() - 1) as u32
}

fn cumulative(classes: &[ClassSpec]) -> Vec<f64> {
    cumulative_of(&classes.iter().collect::<Vec<_>>())
}

/// The cumulative shares of `classes` (a subset of a workload's: each share over their sum).
fn cumulative_of(classes: &[&ClassSpec]) -> Vec<f64> {
    let total: f64 = classes.iter().map(|c| c.share).sum();
    let mut acc = 0.0;
    classes
        .iter()
        .map(|c| {
            acc += c.share / total;
            acc
        })
        .collect()
}

pub struct Poisson {
    /// Mean inter-arrival time, ps.
    mean_gap_ps: f64,
    sizes: SizeSpec,
    senders: Vec<NodeId>,
    receivers: Vec<NodeId>,
    cum_shares: Vec<f64>,
    /// The senders' cumulative shares of the arrivals when they differ (see
    /// [`Generator::weight_senders`]); empty: uniform.
    sender_cum: Vec<f64>,
    stop: Time,
    rng: Rng,
    /// Arrivals so far and their payload bytes.
    pub flows: u64,
    pub bytes: u64,
}

impl Poisson {
    /// Time of the next arrival after `now`, if before `stop`.
    fn next_after(&mut self, now: Time) -> Option<Time> {
        let u: f64 = self.rng.random();
        let gap = -(1.0 - u).ln() * self.mean_gap_ps; // exponential, mean 1/lambda
        let t = now + Time(gap.round().min(u64::MAX as f64 / 2.0) as u64);
        (t < self.stop).then_some(t)
    }

    /// The arrival at `now`: the flow to start, and when the next one comes.
    fn fire(&mut self, now: Time) -> (FlowRequest, Option<Time>) {
        let size = self.sizes.sample(&mut self.rng);
        let class = pick_class(&self.cum_shares, self.rng.random());
        let src = if self.sender_cum.is_empty() {
            self.senders[self.rng.random_range(0..self.senders.len())]
        } else {
            let u: f64 = self.rng.random();
            self.senders[self.sender_cum.partition_point(|&c| c <= u).min(self.senders.len() - 1)]
        };
        // Uniform among the receivers other than the source (validated: there is one).
        let others = self.receivers.iter().filter(|&&r| r != src).count();
        let k = self.rng.random_range(0..others);
        let dst = *self.receivers.iter().filter(|&&r| r != src).nth(k).expect("k < others");
        self.flows += 1;
        self.bytes += size;
        (FlowRequest { src, dst, size_bytes: Some(size), class, round: None }, self.next_after(now))
    }
}

pub struct Incast {
    client: NodeId,
    servers: Vec<NodeId>,
    /// Response size and class of each server.
    sizes: Vec<u64>,
    classes: Vec<u32>,
    rounds: u64,
    gap: Time,
    /// The run's end: a round due at or after it does not start (as a trace's flow or a Poisson
    /// arrival, so that a run to t never fires a workload's event at t).
    end: Time,
    outstanding: u32,
    pub log: Vec<RoundRecord>,
}

impl Incast {
    fn start_round(&mut self, now: Time) -> Vec<FlowRequest> {
        let round = self.log.len() as u32;
        self.outstanding = self.servers.len() as u32;
        self.log.push(RoundRecord {
            round,
            start: now,
            end: None,
            responses: self.servers.len() as u32,
            bytes: self.sizes.iter().sum(),
        });
        (0..self.servers.len())
            .map(|i| FlowRequest {
                src: self.servers[i],
                dst: self.client,
                size_bytes: Some(self.sizes[i]),
                class: self.classes[i],
                round: Some(round),
            })
            .collect()
    }

    /// A response of `round` completed at `now`; returns when the next round starts, if one does.
    pub fn on_done(&mut self, round: u32, now: Time) -> Option<Time> {
        if round as usize + 1 != self.log.len() || self.outstanding == 0 {
            return None;
        }
        self.outstanding -= 1;
        if self.outstanding > 0 {
            return None;
        }
        self.log[round as usize].end = Some(now);
        let next = now + self.gap;
        ((self.log.len() as u64) < self.rounds && next < self.end).then_some(next)
    }
}

/// A trace's flows in time order (a stable sort: equal times keep their listed order).
pub struct Trace {
    /// Start, source, destination, payload bytes and the protocol the list names (index into
    /// `among`; None: any class).
    arrivals: Vec<(Time, NodeId, NodeId, u64, Option<u32>)>,
    next: usize,
    cum_shares: Vec<f64>,
    /// For each protocol named: its classes and their cumulative shares among them.
    among: Vec<(Vec<u32>, Vec<f64>)>,
    end: Time,
    rng: Rng,
    /// Flows started so far and their payload bytes.
    pub flows: u64,
    pub bytes: u64,
}

impl Trace {
    /// The flows due at `now`, and when the next is due (arrivals at or after the end of the run
    /// never start).
    fn fire(&mut self, now: Time) -> (Vec<FlowRequest>, Option<Time>) {
        let mut out = Vec::new();
        while let Some(&(t, src, dst, size, named)) = self.arrivals.get(self.next) {
            if t > now {
                break;
            }
            // Drawn among the named protocol's classes; where one class has it, no draw (so the
            // others' draws are those of a list of them alone).
            let class = match named.map(|p| &self.among[p as usize]) {
                Some((classes, _)) if classes.len() == 1 => classes[0],
                Some((classes, cum)) => classes[pick_class(cum, self.rng.random()) as usize],
                None => pick_class(&self.cum_shares, self.rng.random()),
            };
            out.push(FlowRequest { src, dst, size_bytes: Some(size), class, round: None });
            self.flows += 1;
            self.bytes += size;
            self.next += 1;
        }
        (out, self.arrivals.get(self.next).map(|a| a.0).filter(|&t| t < self.end))
    }
}

/// A permutation's flows, drawn when the workload is built and started together at `start`.
pub struct Permutation {
    requests: Vec<FlowRequest>,
    /// Flows started so far and their payload bytes (long-lived flows count none).
    pub flows: u64,
    pub bytes: u64,
}

/// Shuffles of the receivers tried before giving up on a derangement. Each succeeds with
/// probability >= 1/3 (the least, at n = 3: 2 derangements of 6 orders; 1/2 at n = 2, -> 1/e for
/// large n), so 10 000 failures (probability < (2/3)^10000 ~ 2^-5850) mean none exists:
/// validation refuses those lists first.
const MAX_SHUFFLES: u32 = 10_000;

/// `receivers` reordered so that sender i's partner is element i: a uniformly random bijection
/// with no sender paired with itself (rejection of Fisher-Yates shuffles).
fn partners(senders: &[NodeId], receivers: &[NodeId], rng: &mut Rng) -> Option<Vec<NodeId>> {
    let mut order = receivers.to_vec();
    for _ in 0..MAX_SHUFFLES {
        order.shuffle(rng);
        if senders.iter().zip(&order).all(|(s, r)| s != r) {
            return Some(order);
        }
    }
    None
}

pub enum Generator {
    Poisson(Poisson),
    Incast(Incast),
    Trace(Trace),
    Permutation(Permutation),
}

impl Generator {
    /// A Poisson workload whose load refers to its senders' host links (`link` = "hosts"): each
    /// arrival's sender drawn with probability proportional to its host-link rate `bps[i]`, so
    /// that every host link carries `load` of its own capacity on average (lambda is built from
    /// the summed rates). Equal rates keep the uniform draw (the same draws as without weights).
    /// A review: with 10 and 1 Gbps senders drawn uniformly, the 1 Gbps host was offered 165 %
    /// of its link at load = 0.3.
    pub fn weight_senders(&mut self, bps: &[u64]) {
        let Generator::Poisson(g) = self else { return };
        debug_assert_eq!(bps.len(), g.senders.len());
        if bps.windows(2).all(|w| w[0] == w[1]) {
            return;
        }
        let total: f64 = bps.iter().map(|&b| b as f64).sum();
        let mut acc = 0.0;
        g.sender_cum = bps
            .iter()
            .map(|&b| {
                acc += b as f64 / total;
                acc
            })
            .collect();
    }

    /// Build workload `index` of the scenario; `node` resolves a host name (the scenario was
    /// validated against the network), `rate_bps` is the capacity of a Poisson workload's link.
    /// Returns the generator and its first event time.
    pub fn new(
        spec: &WorkloadSpec,
        index: usize,
        seed: u64,
        duration: Time,
        node: &dyn Fn(&str, String) -> Result<NodeId>,
        rate_bps: u64,
    ) -> Result<(Generator, Option<Time>)> {
        let field = |n: &str| format!("workloads[{index}].{n}");
        let rng = stream(seed, Stream::Workload, index as u64);
        let ids = |names: &[String], what: &str| -> Result<Vec<NodeId>> {
            names.iter().enumerate().map(|(i, n)| node(n, field(&format!("{what}[{i}]")))).collect()
        };
        match spec {
            WorkloadSpec::Poisson { load, sizes, senders, receivers, classes, start_ps, stop_ps, .. } => {
                let lambda_per_ps = load * rate_bps as f64 / (8.0 * sizes.mean_bytes()) / Time::PS_PER_S as f64;
                let mut g = Poisson {
                    mean_gap_ps: 1.0 / lambda_per_ps,
                    sizes: sizes.clone(),
                    senders: ids(senders, "senders")?,
                    receivers: ids(receivers, "receivers")?,
                    cum_shares: cumulative(classes),
                    sender_cum: Vec::new(),
                    stop: Time(stop_ps.unwrap_or(duration.0).min(duration.0)),
                    rng,
                    flows: 0,
                    bytes: 0,
                };
                let first = g.next_after(Time(*start_ps));
                Ok((Generator::Poisson(g), first))
            }
            WorkloadSpec::Incast { client, servers, total_bytes, rounds, gap_ps, start_ps, classes } => {
                let n = servers.len() as u64;
                let client = node(client, field("client"))?;
                let servers: Vec<NodeId> = servers
                    .iter()
                    .enumerate()
                    .map(|(i, s)| node(s, field(&format!("servers[{i}]"))))
                    .collect::<Result<_>>()?;
                let (base, extra) = (total_bytes / n, total_bytes % n);
                let sizes = (0..n).map(|i| base + (i < extra) as u64).collect();
                // Servers are assigned to classes by share, in server order, so every round is the
                // same.
                let cum = cumulative(classes);
                let class_of = (0..n).map(|i| class_by_midpoint(&cum, i as usize, n as usize)).collect();
                let g = Incast {
                    client,
                    servers,
                    sizes,
                    classes: class_of,
                    rounds: *rounds,
                    gap: Time(*gap_ps),
                    end: duration,
                    outstanding: 0,
                    log: Vec::new(),
                };
                let first = (*start_ps < duration.0 && *rounds > 0).then_some(Time(*start_ps));
                Ok((Generator::Incast(g), first))
            }
            WorkloadSpec::Trace { arrivals, classes, .. } => {
                // Each host resolved once; a name that is not a host is reported at its first flow.
                let ids: Vec<Option<NodeId>> = arrivals.hosts.iter().map(|h| node(h, String::new()).ok()).collect();
                let mut list = Vec::with_capacity(arrivals.at_ps.iter().filter(|&&t| t < duration.0).count());
                for (j, ((&t, (&s, &d)), &b)) in arrivals
                    .at_ps
                    .iter()
                    .zip(arrivals.src.iter().zip(&arrivals.dst))
                    .zip(&arrivals.size_bytes)
                    .enumerate()
                {
                    let end = |i: u32, what: &str| match ids[i as usize] {
                        Some(id) => Ok(id),
                        None => node(&arrivals.hosts[i as usize], field(&format!("arrivals[{j}].{what}"))),
                    };
                    let (src, dst) = (end(s, "src")?, end(d, "dst")?);
                    // A flow due at or after the end never starts (`Trace::fire`): checked above,
                    // not kept (32 B a flow; a trace may list 10^7 flows beyond a short run's end).
                    if t < duration.0 {
                        list.push((Time(t), src, dst, b, arrivals.protocol_of(j)));
                    }
                }
                list.sort_by_key(|a| a.0);
                let first = list.first().map(|a| a.0).filter(|&t| t < duration);
                let among = arrivals
                    .protocols
                    .iter()
                    .map(|name| {
                        let of: Vec<u32> = (0..classes.len() as u32)
                            .filter(|&i| classes[i as usize].protocol.name() == name.as_str())
                            .collect();
                        let cum = cumulative_of(&of.iter().map(|&i| &classes[i as usize]).collect::<Vec<_>>());
                        (of, cum)
                    })
                    .collect();
                let g = Trace {
                    arrivals: list,
                    next: 0,
                    cum_shares: cumulative(classes),
                    among,
                    end: duration,
                    rng,
                    flows: 0,
                    bytes: 0,
                };
                Ok((Generator::Trace(g), first))
            }
            WorkloadSpec::Permutation { senders, receivers, size_bytes, start_ps, classes } => {
                let (from, to) = (ids(senders, "senders")?, ids(receivers, "receivers")?);
                let mut rng = rng;
                let Some(to) = partners(&from, &to, &mut rng) else {
                    return Err(invalid(field("receivers"), "no permutation pairs every sender with another host"));
                };
                // Each class gets its share of the senders (as an incast's servers), the senders
                // taken in a seeded random order: a mix spreads over the fabric instead of
                // following the host numbering (leaf by leaf).
                let (cum, n) = (cumulative(classes), from.len());
                let mut rank: Vec<usize> = (0..n).collect();
                rank.shuffle(&mut rng);
                let requests = from
                    .iter()
                    .zip(to)
                    .zip(rank)
                    .map(|((&src, dst), r)| FlowRequest {
                        src,
                        dst,
                        size_bytes: *size_bytes,
                        class: class_by_midpoint(&cum, r, n),
                        round: None,
                    })
                    .collect();
                let first = (*start_ps < duration.0).then_some(Time(*start_ps));
                Ok((Generator::Permutation(Permutation { requests, flows: 0, bytes: 0 }), first))
            }
        }
    }

    /// The generator's event at `now`: flows to start and the time of its next event.
    pub fn fire(&mut self, now: Time) -> (Vec<FlowRequest>, Option<Time>) {
        match self {
            Generator::Poisson(g) => {
                let (r, next) = g.fire(now);
                (vec![r], next)
            }
            Generator::Incast(g) => (g.start_round(now), None),
            Generator::Trace(g) => g.fire(now),
            Generator::Permutation(g) => {
                let out = std::mem::take(&mut g.requests);
                g.flows += out.len() as u64;
                g.bytes += out.iter().filter_map(|r| r.size_bytes).sum::<u64>();
                (out, None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn classes_by_midpoint_give_each_class_its_quota_to_within_one_member() {
        // Cumulative rounding: class j gets round(n C_j) - round(n C_(j-1)) members, within one of
        // its quota n s_j, and members of a class are consecutive. The audit's case: 0.34 / 0.33 /
        // 0.33 of 4 servers gives 1 / 2 / 1 (largest remainder would give 2 / 1 / 1).
        let counts = |shares: &[f64], n: usize| {
            let total: f64 = shares.iter().sum();
            let cum: Vec<f64> =
                shares.iter().scan(0.0, |acc, s| Some(*acc + s / total).inspect(|&c| *acc = c)).collect();
            let classes: Vec<u32> = (0..n).map(|i| class_by_midpoint(&cum, i, n)).collect();
            assert!(classes.windows(2).all(|w| w[0] <= w[1]), "{shares:?} of {n}: {classes:?}");
            (0..shares.len() as u32).map(|c| classes.iter().filter(|&&x| x == c).count()).collect::<Vec<_>>()
        };
        assert_eq!(counts(&[0.34, 0.33, 0.33], 4), [1, 2, 1]);
        assert_eq!(counts(&[0.7, 0.3], 16), [11, 5]);
        for shares in [&[0.5, 0.5][..], &[0.1, 0.2, 0.7], &[1.0, 1.0, 1.0], &[0.05, 0.9, 0.05], &[3.0, 1.0]] {
            let total: f64 = shares.iter().sum();
            for n in 1..=40 {
                let got = counts(shares, n);
                assert_eq!(got.iter().sum::<usize>(), n);
                for (c, s) in got.iter().zip(shares) {
                    let quota = n as f64 * s / total;
                    assert!((*c as f64 - quota).abs() <= 1.0 + 1e-9, "{shares:?} of {n}: {got:?}");
                }
            }
        }
    }

    fn web_search() -> Vec<(f64, f64)> {
        // protocols.md §6, S13 WebSearch_distribution.txt (bytes, CDF %)
        [
            (0.0, 0.0),
            (10000.0, 15.0),
            (20000.0, 20.0),
            (30000.0, 30.0),
            (50000.0, 40.0),
            (80000.0, 53.0),
            (200000.0, 60.0),
            (1000000.0, 70.0),
            (2000000.0, 80.0),
            (5000000.0, 90.0),
            (10000000.0, 97.0),
            (30000000.0, 100.0),
        ]
        .iter()
        .map(|&(s, p)| (s, p / 100.0))
        .collect()
    }

    #[test]
    fn a_trace_starts_each_flow_at_its_time_in_order_and_none_after_the_end() {
        let class = class(1.0);
        let arr = TraceArrival::new;
        let list: Vec<TraceArrival> = vec![
            arr(30, "a", "b", 3),
            arr(10, "b", "a", 1),
            arr(30, "b", "c", 4),
            arr(10, "c", "a", 2),
            arr(100, "a", "c", 9),
        ];
        let arrivals: TraceArrivals = list.iter().cloned().collect();
        assert_eq!((0..list.len()).map(|j| arrivals.get(j)).collect::<Vec<_>>(), list, "rows round-trip");
        assert_eq!(arrivals.hosts, ["a", "b", "c"]);
        assert!(arrivals.check().is_ok());
        // listed out of order; two at the same time; one at the end of the run (never starts)
        let spec = WorkloadSpec::Trace { arrivals, classes: vec![class], start_ps: 0 };
        let ids = |n: &str, _: String| -> Result<NodeId> {
            Ok(match n {
                "a" => 0,
                "b" => 1,
                _ => 2,
            })
        };
        let (mut g, first) = Generator::new(&spec, 0, 1, Time(100), &ids, 0).unwrap();
        assert_eq!(first, Some(Time(10)));
        let (r, next) = g.fire(Time(10));
        assert_eq!(
            r.iter().map(|f| (f.src, f.dst, f.size_bytes)).collect::<Vec<_>>(),
            vec![(1, 0, Some(1)), (2, 0, Some(2))]
        );
        assert_eq!(next, Some(Time(30)));
        let (r, next) = g.fire(Time(30));
        assert_eq!(r.iter().map(|f| f.size_bytes).collect::<Vec<_>>(), vec![Some(3), Some(4)]);
        assert_eq!(next, None, "an arrival at the end of the run never starts");
        let Generator::Trace(t) = g else { panic!("a trace") };
        assert_eq!((t.flows, t.bytes), (4, 10));
    }

    #[test]
    fn cdf_mean_matches_protocols_md() {
        // protocols.md §6: the web-search mean is about 1.71 MB.
        let m = SizeSpec::Cdf { points: web_search() }.mean_bytes();
        assert!((m - 1.71e6).abs() < 0.01e6, "mean {m}");
    }

    #[test]
    fn cdf_mean_is_the_mean_of_the_sampled_whole_bytes() {
        // By hand: 0.9 at 0 B draws 1 B; the segment (0, 10] B rounds to 0..10 with mean 5 and its
        // first 0.5 B (5 % of it) rounds to 0, raised to 1: 5.05. So 0.9 + 0.1 x 5.05 = 1.405 B.
        let tiny = SizeSpec::Cdf { points: vec![(0.0, 0.9), (10.0, 1.0)] };
        assert!((tiny.mean_bytes() - 1.405).abs() < 1e-12, "{}", tiny.mean_bytes());
        // Segments that do not start on a half byte, and an atom inside (a vertical step): the
        // exact means against the average of 10^6 draws, within 5 standard errors.
        for pts in [
            vec![(0.3, 0.2), (2.7, 0.5), (2.7, 0.6), (7.2, 1.0)],
            vec![(1.0, 0.0), (1.6, 0.25), (3.4, 1.0)],
            web_search(),
        ] {
            let d = SizeSpec::Cdf { points: pts.clone() };
            let mut rng = stream(7, Stream::Workload, 0);
            let n = 1_000_000;
            let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut rng) as f64).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
            let se = sd / (n as f64).sqrt();
            assert!((d.mean_bytes() - mean).abs() < 5.0 * se, "{pts:?}: exact {} drawn {mean} +- {se}", d.mean_bytes());
        }
    }

    #[test]
    fn cdf_sampling_follows_the_cdf_within_the_dkw_bound() {
        // Kolmogorov-Smirnov distance of n samples to the CDF they come from, checked at every
        // breakpoint and at 9 points inside every segment. The Dvoretzky-Kiefer-Wolfowitz
        // inequality bounds P(D_n > e) by 2 exp(-2 n e^2); with e = sqrt(ln(2/1e-6) / (2n)) that
        // is 1e-6 (n = 200 000: e = 0.0085). Rounding to whole bytes moves a sample by <= 0.5 B,
        // which shifts the CDF at a point by at most 0.5 B x the steepest density (0.15 / 10 kB
        // here: 7.5e-6), negligible.
        let pts = web_search();
        let dist = SizeSpec::Cdf { points: pts.clone() };
        let mut rng = stream(42, Stream::Workload, 0);
        let n = 200_000usize;
        let mut xs: Vec<u64> = (0..n).map(|_| dist.sample(&mut rng)).collect();
        xs.sort_unstable();
        let eps = ((2.0f64 / 1e-6).ln() / (2.0 * n as f64)).sqrt();
        let mut worst = 0.0f64;
        for w in pts.windows(2) {
            for k in 0..10 {
                let x = w[0].0 + (w[1].0 - w[0].0) * k as f64 / 10.0;
                let f = w[0].1 + (w[1].1 - w[0].1) * k as f64 / 10.0;
                let emp = xs.partition_point(|&s| (s as f64) <= x) as f64 / n as f64;
                worst = worst.max((emp - f).abs());
            }
        }
        assert!(worst < eps + 1e-4, "KS distance {worst}, DKW bound {eps}");
        // The data-mining CDF's atom: half of all flows are exactly one 1460 B packet.
        let dm = SizeSpec::Cdf { points: vec![(1460.0, 0.0), (1460.0, 0.5), (2920.0, 0.6), (973333820.0, 1.0)] };
        let ones = (0..n).filter(|_| dm.sample(&mut rng) == 1460).count() as f64 / n as f64;
        assert!((ones - 0.5).abs() < eps, "fraction at 1460 B: {ones}");
    }

    #[test]
    fn uniform_and_fixed_sizes() {
        let mut rng = stream(1, Stream::Workload, 0);
        let u = SizeSpec::Uniform { min_bytes: 10_000, max_bytes: 50_000 };
        let xs: Vec<u64> = (0..100_000).map(|_| u.sample(&mut rng)).collect();
        assert!(xs.iter().all(|&x| (10_000..=50_000).contains(&x)));
        // mean 30 000 B, sd of the mean 11 547 / sqrt(1e5) = 36.5 B: 5 sd
        let m = xs.iter().sum::<u64>() as f64 / xs.len() as f64;
        assert!((m - 30_000.0).abs() < 5.0 * 36.5, "mean {m}");
        assert_eq!(SizeSpec::Fixed { bytes: 7 }.sample(&mut rng), 7);
    }

    #[test]
    fn mean_packets_is_the_mean_of_the_drawn_sizes_packet_counts() {
        // Fixed and uniform: exact against the sum over every size (1 460 B of payload per packet).
        assert_eq!(SizeSpec::Fixed { bytes: 1 }.mean_packets(1460), 1.0);
        assert_eq!(SizeSpec::Fixed { bytes: 1460 }.mean_packets(1460), 1.0);
        assert_eq!(SizeSpec::Fixed { bytes: 1461 }.mean_packets(1460), 2.0);
        for (a, b) in [(1u64, 1u64), (1, 1460), (1000, 5000), (1460, 2920), (10_000, 50_000)] {
            let exact = (a..=b).map(|s| s.div_ceil(1460) as f64).sum::<f64>() / (b - a + 1) as f64;
            let got = SizeSpec::Uniform { min_bytes: a, max_bytes: b }.mean_packets(1460);
            assert!((got - exact).abs() < 1e-9 * exact, "[{a}, {b}]: {got} against {exact}");
        }
        // CDFs: against the average of 10^6 draws, within 5 standard errors (segments off the
        // half byte, an atom, mass below 0.5 B raised to 1 B, the shipped web-search CDF).
        for (pts, mss) in [
            (vec![(0.0, 0.9), (10.0, 1.0)], 4u64),
            (vec![(0.3, 0.2), (2.7, 0.5), (2.7, 0.6), (7.2, 1.0)], 2),
            (vec![(1460.0, 0.0), (1460.0, 0.5), (2920.0, 0.6), (100_000.0, 1.0)], 1460),
            (web_search(), 1460),
        ] {
            let d = SizeSpec::Cdf { points: pts.clone() };
            let mut rng = stream(11, Stream::Workload, 0);
            let n = 1_000_000;
            let ks: Vec<f64> = (0..n).map(|_| d.sample(&mut rng).div_ceil(mss) as f64).collect();
            let mean = ks.iter().sum::<f64>() / n as f64;
            let sd = (ks.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
            let se = (sd / (n as f64).sqrt()).max(1e-12);
            let exact = d.mean_packets(mss);
            assert!((exact - mean).abs() < 5.0 * se, "{pts:?}: exact {exact} drawn {mean} +- {se}");
        }
    }

    #[test]
    fn senders_are_drawn_in_proportion_to_their_host_link_rates() {
        // Host links of 10, 1 and 1 Gbps: shares 10/12, 1/12, 1/12 of 60 000 arrivals (binomial
        // sd <= 0.0015, allow 5 sd); equal rates keep the unweighted draws exactly.
        let spec = WorkloadSpec::Poisson {
            load: 0.3,
            link: None,
            sizes: SizeSpec::Fixed { bytes: 1000 },
            senders: vec!["a".into(), "b".into(), "c".into()],
            receivers: vec!["r".into()],
            classes: vec![class(1.0)],
            start_ps: 0,
            stop_ps: None,
        };
        let names = |n: &str, _f: String| -> Result<NodeId> {
            Ok(["a", "b", "c", "r"].iter().position(|x| *x == n).unwrap() as NodeId)
        };
        let draws = |bps: Option<&[u64]>, k: usize| {
            let (mut g, _) = Generator::new(&spec, 0, 3, Time(u64::MAX / 4), &names, 12_000_000_000).unwrap();
            if let Some(b) = bps {
                g.weight_senders(b);
            }
            (0..k).map(|i| g.fire(Time(i as u64)).0[0].src).collect::<Vec<_>>()
        };
        let n = 60_000;
        let src = draws(Some(&[10_000_000_000, 1_000_000_000, 1_000_000_000]), n);
        for (h, share) in [(0, 10.0 / 12.0), (1, 1.0 / 12.0), (2, 1.0 / 12.0)] {
            let f = src.iter().filter(|&&s| s == h).count() as f64 / n as f64;
            let sd = (share * (1.0 - share) / n as f64).sqrt();
            assert!((f - share).abs() < 5.0 * sd, "sender {h}: {f} against {share}");
        }
        assert_eq!(draws(Some(&[7, 7, 7]), 1000), draws(None, 1000));
    }

    #[test]
    fn bad_cdfs_name_the_point() {
        let err = |pts: Vec<(f64, f64)>| SizeSpec::Cdf { points: pts }.validate("workloads[0].sizes").unwrap_err();
        let e = err(vec![(10.0, 0.2), (5.0, 0.5), (20.0, 1.0)]).to_string();
        assert!(e.starts_with("workloads[0].sizes.points[1]:") && e.contains("not monotone"), "{e}");
        let e = err(vec![(10.0, 0.5), (20.0, 0.4), (30.0, 1.0)]).to_string();
        assert!(e.contains("points[1]") && e.contains("not monotone"), "{e}");
        let e = err(vec![(10.0, 0.5), (20.0, 0.9)]).to_string();
        assert!(e.contains("points[1]") && e.contains("not at 1"), "{e}");
        let e = err(vec![(-1.0, 0.0), (20.0, 1.0)]).to_string();
        assert!(e.contains("points[0]") && e.contains("out of range"), "{e}");
    }

    fn class(share: f64) -> ClassSpec {
        ClassSpec {
            share,
            protocol: ProtocolSpec::newreno(true),
            min_cwnd_pkt: Some(2.0),
            init_cwnd_pkt: 10.0,
            min_rto_ps: Some(1),
            delayed_ack: None,
            tcp: TcpSpec::default(),
        }
    }

    #[test]
    fn poisson_realised_load_is_the_target_within_the_compound_poisson_spread() {
        // 20 % of 1 Gbps with uniform 10-50 KB flows over 20 s: lambda = 0.2e9 / (8 x 30 000) =
        // 833 flows/s, 16 667 flows. The realised load L = 8 sum(S) / (C T) of a compound Poisson
        // sum has sd = 8 sqrt(lambda T E[S^2]) / (C T) = 0.00163; allow 5 sd. The flow count is
        // Poisson(lambda T): sd = 129, allow 5 sd. Shares 30/70: binomial sd 0.0035, allow 5 sd.
        let spec = WorkloadSpec::Poisson {
            load: 0.2,
            link: Some(PortRef { from: "sw".into(), to: "r".into() }),
            sizes: SizeSpec::Uniform { min_bytes: 10_000, max_bytes: 50_000 },
            senders: vec!["a".into(), "b".into()],
            receivers: vec!["a".into(), "r".into()],
            classes: vec![class(0.3), class(0.7)],
            start_ps: 0,
            stop_ps: None,
        };
        let names = |n: &str, _f: String| -> Result<NodeId> {
            Ok(["a", "b", "r"].iter().position(|x| *x == n).unwrap() as NodeId)
        };
        let c = 1e9;
        let t_ps = 20 * Time::PS_PER_S;
        let (mut g, mut next) = Generator::new(&spec, 0, 7, Time(t_ps), &names, c as u64).unwrap();
        let (mut n, mut bytes, mut class1, mut last) = (0u64, 0u64, 0u64, Time(0));
        while let Some(t) = next {
            assert!(t >= last && t.0 < t_ps);
            last = t;
            let (reqs, nx) = g.fire(t);
            for r in reqs {
                assert_ne!(r.src, r.dst, "never to itself");
                assert!(r.src <= 1 && (r.dst == 0 || r.dst == 2));
                n += 1;
                bytes += r.size_bytes.expect("Poisson sizes are finite");
                class1 += r.class as u64;
            }
            next = nx;
        }
        let lambda = 0.2 * c / (8.0 * 30_000.0);
        let t = 20.0;
        let load = bytes as f64 * 8.0 / (c * t);
        let sd_load = 8.0 * (lambda * t * spec_second_moment()).sqrt() / (c * t);
        assert!((load - 0.2).abs() < 5.0 * sd_load, "realised load {load}, sd {sd_load}");
        assert!((n as f64 - lambda * t).abs() < 5.0 * (lambda * t).sqrt(), "{n} flows");
        let f1 = class1 as f64 / n as f64;
        assert!((f1 - 0.7).abs() < 5.0 * (0.21 / n as f64).sqrt(), "class-1 share {f1}");
        // Bit-identical per seed, different for another seed.
        let (mut g2, n2) = Generator::new(&spec, 0, 7, Time(t_ps), &names, c as u64).unwrap();
        let (mut g3, n3) = Generator::new(&spec, 0, 8, Time(t_ps), &names, c as u64).unwrap();
        assert_eq!(n2, Generator::new(&spec, 0, 7, Time(t_ps), &names, c as u64).unwrap().1);
        assert_ne!(n2, n3);
        assert_eq!(
            g2.fire(n2.unwrap()).0,
            Generator::new(&spec, 0, 7, Time(t_ps), &names, c as u64).unwrap().0.fire(n2.unwrap()).0
        );
        let _ = g3.fire(n3.unwrap());
    }

    fn spec_second_moment() -> f64 {
        SizeSpec::Uniform { min_bytes: 10_000, max_bytes: 50_000 }.second_moment()
    }

    #[test]
    fn incast_rounds_wait_for_the_last_response() {
        let spec = WorkloadSpec::Incast {
            client: "c".into(),
            servers: vec!["s0".into(), "s1".into(), "s2".into()],
            total_bytes: 1_000_000,
            rounds: 2,
            gap_ps: 5,
            start_ps: 100,
            classes: vec![class(0.5), class(0.5)],
        };
        let names = |n: &str, _f: String| -> Result<NodeId> {
            Ok(["c", "s0", "s1", "s2"].iter().position(|x| *x == n).unwrap() as NodeId)
        };
        let (mut g, first) = Generator::new(&spec, 0, 1, Time(1_000_000), &names, 0).unwrap();
        assert_eq!(first, Some(Time(100)));
        let (reqs, next) = g.fire(Time(100));
        assert_eq!(next, None);
        // 1 000 000 = 3 x 333 333 + 1: the first server sends one byte more; the round moves exactly 1 MB.
        assert_eq!(
            reqs.iter().map(|r| r.size_bytes).collect::<Vec<_>>(),
            vec![Some(333_334), Some(333_333), Some(333_333)]
        );
        assert!(reqs.iter().all(|r| r.dst == 0 && r.round == Some(0)));
        // 50/50 over 3 servers by position (midpoints 1/6, 1/2, 5/6): one of class 0, two of class 1.
        assert_eq!(reqs.iter().map(|r| r.class).collect::<Vec<_>>(), vec![0, 1, 1]);
        let Generator::Incast(inc) = &mut g else { panic!() };
        assert_eq!(inc.on_done(0, Time(200)), None);
        assert_eq!(inc.on_done(0, Time(300)), None);
        assert_eq!(inc.on_done(0, Time(400)), Some(Time(405)), "the next round: last response + gap");
        assert_eq!(inc.log[0].end, Some(Time(400)));
        let (reqs, _) = g.fire(Time(405));
        assert!(reqs.iter().all(|r| r.round == Some(1)));
        let Generator::Incast(inc) = &mut g else { panic!() };
        for t in [500, 600] {
            assert_eq!(inc.on_done(1, Time(t)), None);
        }
        assert_eq!(inc.on_done(1, Time(700)), None, "two rounds only");
        assert_eq!(inc.log.len(), 2);

        // A round due at the run's end does not start (a run to t fires no workload event at t:
        // a review found a stop's partial without the round a fresh run to t + 1 ps started).
        let (mut g, _) = Generator::new(&spec, 0, 1, Time(405), &names, 0).unwrap();
        let _ = g.fire(Time(100));
        let Generator::Incast(inc) = &mut g else { panic!() };
        for t in [200, 300] {
            assert_eq!(inc.on_done(0, Time(t)), None);
        }
        assert_eq!(inc.on_done(0, Time(400)), None, "round 1 would start at 405 = the end");
        let (mut g, _) = Generator::new(&spec, 0, 1, Time(406), &names, 0).unwrap();
        let _ = g.fire(Time(100));
        let Generator::Incast(inc) = &mut g else { panic!() };
        for t in [200, 300] {
            assert_eq!(inc.on_done(0, Time(t)), None);
        }
        assert_eq!(inc.on_done(0, Time(400)), Some(Time(405)), "within the run");
    }

    /// A permutation over the same hosts is a derangement: every host sends one flow and receives
    /// one, none to itself; the same seed draws the same pairs; a 50/50 mix gives each class two
    /// of the four senders, in a seeded order. Over 2 000 seeds of 4 hosts, each
    /// of the 9 derangements of 4 is drawn with probability 1/9 (uniform): 222.2 expected, binomial
    /// sd 14.1, so every count lies within 5 sd (70) unless the draw is biased.
    #[test]
    fn a_permutation_pairs_every_host_once_with_another_and_is_uniform_over_derangements() {
        let names: Vec<String> = (0..4).map(|i| format!("h{i}")).collect();
        let spec = |size: Option<u64>| WorkloadSpec::Permutation {
            senders: names.clone(),
            receivers: names.clone(),
            size_bytes: size,
            start_ps: 5,
            classes: vec![class(0.5), class(0.5)],
        };
        let ids = |n: &str, _: String| -> Result<NodeId> { Ok(n[1..].parse().unwrap()) };
        let (mut counts, mut class_of_h0) = (std::collections::BTreeMap::new(), std::collections::BTreeMap::new());
        for seed in 0..2000u64 {
            let (mut g, first) = Generator::new(&spec(Some(1000)), 0, seed, Time(100), &ids, 0).unwrap();
            assert_eq!(first, Some(Time(5)));
            let (r, next) = g.fire(Time(5));
            assert_eq!(next, None);
            assert_eq!(r.iter().map(|f| f.src).collect::<Vec<_>>(), vec![0, 1, 2, 3], "every sender once, in order");
            let mut dst: Vec<_> = r.iter().map(|f| f.dst).collect();
            assert!(r.iter().all(|f| f.src != f.dst && f.size_bytes == Some(1000)));
            let mut classes: Vec<_> = r.iter().map(|f| f.class).collect();
            classes.sort_unstable();
            assert_eq!(classes, vec![0, 0, 1, 1], "each class its share of the senders exactly");
            *class_of_h0.entry(r[0].class).or_insert(0u32) += 1;
            *counts.entry(dst.clone()).or_insert(0u32) += 1;
            dst.sort_unstable();
            assert_eq!(dst, vec![0, 1, 2, 3], "every receiver once");
            let Generator::Permutation(p) = g else { panic!("a permutation") };
            assert_eq!((p.flows, p.bytes), (4, 4000));
        }
        assert_eq!(counts.len(), 9, "the 9 derangements of 4 all occur");
        assert!(counts.values().all(|&c| (c as f64 - 2000.0 / 9.0).abs() < 70.0), "{counts:?}");
        // The classes follow a seeded order, not the host numbering: h0 is in each class about half
        // the time (binomial(2000, 1/2): sd 22.4, 5 sd = 112).
        assert!(class_of_h0.values().all(|&c| (c as f64 - 1000.0).abs() < 112.0), "{class_of_h0:?}");
        // The same seed, the same pairs; long-lived flows count no bytes; a start at the end never fires.
        let draw = |seed| Generator::new(&spec(None), 0, seed, Time(100), &ids, 0).unwrap().0.fire(Time(5)).0;
        assert_eq!(draw(7), draw(7));
        assert!(draw(7).iter().all(|f| f.size_bytes.is_none()));
        let late = WorkloadSpec::Permutation {
            senders: names.clone(),
            receivers: names.clone(),
            size_bytes: None,
            start_ps: 100,
            classes: vec![class(1.0)],
        };
        assert_eq!(Generator::new(&late, 0, 1, Time(100), &ids, 0).unwrap().1, None);
    }
}
