//! Probes and result tables. Memory is bounded: every series is sampled at a fixed interval
//! (its size is known before the run and checked against `metrics.max_memory_bytes`), and the
//! queue distribution is a time-weighted histogram kept by the port itself.

use crate::units::Time;

/// One column of a result table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named table of equal-length columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    pub fn new(name: &'static str) -> Self {
        Table { name, columns: Vec::new() }
    }
    pub fn col(mut self, name: &'static str, c: Column) -> Self {
        self.columns.push((name, c));
        self
    }
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
    }
    pub fn f64(&self, name: &str) -> &[f64] {
        match self.get(name) {
            Some(Column::F64(v)) => v,
            _ => &[],
        }
    }
    pub fn u64(&self, name: &str) -> &[u64] {
        match self.get(name) {
            Some(Column::U64(v)) => v,
            _ => &[],
        }
    }
    pub fn bool(&self, name: &str) -> &[bool] {
        match self.get(name) {
            Some(Column::Bool(v)) => v,
            _ => &[],
        }
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}

/// Sampled queue lengths of the monitored ports.
#[derive(Default)]
pub struct QueueProbe {
    pub t_s: Vec<f64>,
    pub port: Vec<u64>,
    pub q_pkt: Vec<u64>,
    pub q_bytes: Vec<u64>,
}

impl QueueProbe {
    pub fn record(&mut self, now: Time, port: u32, q_pkt: u64, q_bytes: u64) {
        self.t_s.push(now.secs_f64());
        self.port.push(port as u64);
        self.q_pkt.push(q_pkt);
        self.q_bytes.push(q_bytes);
    }
}

/// Quantile (0..1) of a histogram indexed by value (weights: counts or time); NaN if empty.
pub fn hist_quantile(h: &[u64], q: f64) -> f64 {
    let total: u64 = h.iter().sum();
    if total == 0 {
        return f64::NAN;
    }
    let target = (q * total as f64).ceil().max(1.0) as u64;
    let mut acc = 0;
    for (v, &c) in h.iter().enumerate() {
        acc += c;
        if acc >= target {
            return v as f64;
        }
    }
    (h.len() - 1) as f64
}

/// Per-flow goodput over each interval.
#[derive(Default)]
pub struct ThroughputProbe {
    pub t_s: Vec<f64>,
    pub flow: Vec<u64>,
    pub rate_bps: Vec<f64>,
    pub last_bytes: Vec<u64>,
}

/// Per-flow window and alpha traces.
#[derive(Default)]
pub struct CwndProbe {
    pub t_s: Vec<f64>,
    pub flow: Vec<u64>,
    pub cwnd_pkt: Vec<f64>,
    pub alpha: Vec<f64>,
    pub srtt_s: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn quantiles_of_histogram() {
        // values 0..=9 once each
        let h = vec![1u64; 10];
        assert_eq!(hist_quantile(&h, 0.5), 4.0);
        assert_eq!(hist_quantile(&h, 0.99), 9.0);
        assert_eq!(hist_quantile(&h, 0.0), 0.0);
        assert!(hist_quantile(&[], 0.5).is_nan());
    }
}
