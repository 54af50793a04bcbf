//! Probes and result tables. Memory is bounded: every series is sampled at a fixed interval
//! (its size is known before the run and checked against `metrics.max_memory_bytes`), and the
//! queue distribution is a time-weighted histogram kept by the port itself.

use std::collections::HashMap;

use crate::pages::Resident;

/// One column of a result table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Bool(Vec<bool>),
    Str(Strings),
}

/// A string column kept as each distinct value once and a code per row: the flows table's
/// `src`, `dst`, `protocol` and `path` repeat a few values over up to millions of rows, where a
/// `String` each took ~55-70 B a row at the run's peak. Equal when the strings are equal, row by
/// row.
#[derive(Clone, Debug, Default)]
pub struct Strings {
    codes: Vec<u32>,
    values: Vec<String>,
    /// Value -> code while the column is built (see [`Strings::push`]); emptied by `done`.
    index: HashMap<String, u32>,
}

impl Strings {
    /// Append a row.
    pub fn push(&mut self, s: &str) {
        let code = match self.index.get(s) {
            Some(&c) => c,
            None => {
                let c = self.values.len() as u32;
                self.values.push(s.to_string());
                self.index.insert(s.to_string(), c);
                c
            }
        };
        self.codes.push(code);
    }
    /// The column as built: the index that found each value's code is let go.
    pub fn done(mut self) -> Self {
        self.index = HashMap::new();
        self
    }
    pub fn len(&self) -> usize {
        self.codes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
    /// Each row's code: its value's index in [`Strings::values`].
    pub fn codes(&self) -> &[u32] {
        &self.codes
    }
    /// The distinct values, in the order of their first row.
    pub fn values(&self) -> &[String] {
        &self.values
    }
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.codes.iter().map(|&c| self.values[c as usize].as_str())
    }
}

impl std::ops::Index<usize> for Strings {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        &self.values[self.codes[i] as usize]
    }
}

impl PartialEq for Strings {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl From<Vec<String>> for Strings {
    fn from(v: Vec<String>) -> Self {
        let mut out = Strings::default();
        v.iter().for_each(|s| out.push(s));
        out.done()
    }
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
    pub(crate) resident: Resident,
}

/// A sampled series whose rows are (time, entity, values...): what merging the series of a
/// partitioned run's worlds needs.
pub(crate) trait Series: Default {
    fn t_s(&self) -> &[f64];
    /// The sampled entity of each row (port or flow).
    fn entity(&self) -> &[u64];
    /// Append row `i` of `other`.
    fn push_row(&mut self, other: &Self, i: usize);
}

/// The rows of `parts` in one series, ordered by time, then by the entity's place `order[entity]`
/// (the order one world samples them in).
pub(crate) fn interleave<S: Series>(parts: &[S], order: &std::collections::HashMap<u64, usize>) -> S {
    let mut keys: Vec<(usize, usize)> =
        parts.iter().enumerate().flat_map(|(w, p)| (0..p.t_s().len()).map(move |i| (w, i))).collect();
    keys.sort_by(|&(a, i), &(b, j)| {
        let (pa, pb) = (&parts[a], &parts[b]);
        pa.t_s()[i].total_cmp(&pb.t_s()[j]).then(order[&pa.entity()[i]].cmp(&order[&pb.entity()[j]]))
    });
    let mut out = S::default();
    for (w, i) in keys {
        out.push_row(&parts[w], i);
    }
    out
}

/// `impl Series` for a probe: its time column, its entity column, then its value columns; its
/// `keep_resident`, which keeps the memory of those columns resident a chunk ahead of the rows
/// written (see [`crate::pages`]; called once the columns are reserved, then by `finish`);
/// and its row writer `$rows`, through which a sample appends its rows: `rows(n)` makes room for
/// up to n rows once (the columns were reserved for the whole run, so this never reallocates),
/// `push` writes a row without a capacity check per value, `finish` makes the rows written part
/// of the columns and keeps the memory ahead of them resident (rows written and not finished are
/// not kept).
macro_rules! series {
    ($probe:ty, $rows:ident, $entity:ident, [$($col:ident: $ty:ty),*]) => {
        pub(crate) struct $rows<'a> {
            probe: &'a mut $probe,
            /// Rows written so far.
            n: usize,
            /// Rows there is room for in every column.
            room: usize,
            /// Where each column's first new value goes (its end when the writer was made): a
            /// row's values are then stored at `n` past these, without reloading each column's
            /// pointer and length per value (a window sample writes ~10^6 rows a simulated second).
            t_s: *mut f64,
            $entity: *mut u64,
            $($col: *mut $ty),*
        }

        impl $probe {
            /// A writer of up to `n` rows (room for them is made first).
            #[inline]
            pub(crate) fn rows(&mut self, n: usize) -> $rows<'_> {
                self.t_s.reserve(n);
                self.$entity.reserve(n);
                $(self.$col.reserve(n);)*
                // SAFETY: each column's end is within (or one past) its allocation.
                let (t_s, $entity, $($col),*) = unsafe {
                    (
                        self.t_s.as_mut_ptr().add(self.t_s.len()),
                        self.$entity.as_mut_ptr().add(self.$entity.len()),
                        $(self.$col.as_mut_ptr().add(self.$col.len())),*
                    )
                };
                $rows { probe: self, n: 0, room: n, t_s, $entity, $($col),* }
            }
        }

        impl $rows<'_> {
            #[inline]
            pub(crate) fn push(&mut self, t_s: f64, $entity: u64, $($col: $ty),*) {
                assert!(self.n < self.room, "more rows than announced");
                // SAFETY: every column has room for `room` more values past its length (reserved
                // in `rows`; the writer holds the probe, so no column moves or changes length while
                // it lives), and n < room, so each write lands inside the column's allocation,
                // past its initialised part.
                unsafe {
                    self.t_s.add(self.n).write(t_s);
                    self.$entity.add(self.n).write($entity);
                    $(self.$col.add(self.n).write($col);)*
                }
                self.n += 1;
            }

            /// Make the rows written part of the columns; keep the memory ahead of them resident.
            #[inline]
            pub(crate) fn finish(self) {
                let p = self.probe;
                // SAFETY: the first n values past each column's length were written by `push`.
                unsafe {
                    p.t_s.set_len(p.t_s.len() + self.n);
                    p.$entity.set_len(p.$entity.len() + self.n);
                    $(p.$col.set_len(p.$col.len() + self.n);)*
                }
                p.keep_resident();
            }
        }

        impl $probe {
            #[inline]
            pub fn keep_resident(&mut self) {
                let [t, entity, values @ ..] = &mut self.resident.0;
                t.keep(&self.t_s);
                entity.keep(&self.$entity);
                let mut values = values.iter_mut();
                $(values.next().expect("a probe has at most 4 value columns").keep(&self.$col);)*
            }
        }

        impl Series for $probe {
            fn t_s(&self) -> &[f64] {
                &self.t_s
            }
            fn entity(&self) -> &[u64] {
                &self.$entity
            }
            fn push_row(&mut self, o: &Self, i: usize) {
                self.t_s.push(o.t_s[i]);
                self.$entity.push(o.$entity[i]);
                $(self.$col.push(o.$col[i]);)*
            }
        }
    };
}

series!(QueueProbe, QueueRows, port, [q_pkt: u64, q_bytes: u64]);
series!(ThroughputProbe, ThroughputRows, flow, [rate_bps: f64]);
series!(CwndProbe, CwndRows, flow, [cwnd_pkt: f64, alpha: f64, srtt_s: f64]);

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
    pub(crate) resident: Resident,
}

/// Per-flow window and alpha traces.
#[derive(Default)]
pub struct CwndProbe {
    pub t_s: Vec<f64>,
    pub flow: Vec<u64>,
    pub cwnd_pkt: Vec<f64>,
    pub alpha: Vec<f64>,
    pub srtt_s: Vec<f64>,
    pub(crate) resident: Resident,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn window_rows_are_appended_in_order_and_only_when_finished() {
        let mut p = CwndProbe::default();
        let mut rows = p.rows(3);
        rows.push(0.5, 7, 10.0, 0.25, 1e-4);
        rows.push(0.5, 9, 12.0, f64::NAN, f64::NAN);
        rows.finish(); // two of the three announced
        assert_eq!((p.t_s.clone(), p.flow.clone(), p.cwnd_pkt.clone()), (vec![0.5, 0.5], vec![7, 9], vec![10.0, 12.0]));
        assert_eq!(p.alpha[0], 0.25);
        assert!(p.alpha[1].is_nan() && p.srtt_s[1].is_nan());
        {
            let mut rows = p.rows(1);
            rows.push(0.75, 7, 11.0, 0.5, 2e-4);
        } // not finished: not kept
        assert_eq!(p.t_s.len(), 2);
        let mut rows = p.rows(1);
        rows.push(0.75, 7, 11.0, 0.5, 2e-4);
        rows.finish();
        assert_eq!((p.t_s[2], p.flow[2], p.cwnd_pkt[2], p.alpha[2], p.srtt_s[2]), (0.75, 7, 11.0, 0.5, 2e-4));
        assert!([p.t_s.len(), p.flow.len(), p.cwnd_pkt.len(), p.alpha.len(), p.srtt_s.len()].iter().all(|&n| n == 3));
    }

    #[test]
    #[should_panic(expected = "more rows than announced")]
    fn window_rows_beyond_the_room_made_are_refused() {
        let mut p = CwndProbe::default();
        let mut rows = p.rows(1);
        rows.push(0.0, 0, 1.0, 0.0, 0.0);
        rows.push(0.0, 1, 1.0, 0.0, 0.0);
    }

    #[test]
    fn quantiles_of_histogram() {
        // values 0..=9 once each
        let h = vec![1u64; 10];
        assert_eq!(hist_quantile(&h, 0.5), 4.0);
        assert_eq!(hist_quantile(&h, 0.99), 9.0);
        assert_eq!(hist_quantile(&h, 0.0), 0.0);
        assert!(hist_quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn a_string_column_keeps_each_value_once_and_reads_as_its_rows() {
        let rows = ["h0", "h1", "h0", "h0", "leaf0", "h1"];
        let mut c = Strings::default();
        rows.iter().for_each(|s| c.push(s));
        let c = c.done();
        assert_eq!(c.values(), ["h0", "h1", "leaf0"]);
        assert_eq!(c.codes(), [0, 1, 0, 0, 2, 1]);
        assert_eq!(c.iter().collect::<Vec<_>>(), rows);
        assert_eq!((c.len(), &c[4]), (6, "leaf0"));
        let owned: Vec<String> = rows.iter().map(|s| s.to_string()).collect();
        assert_eq!(Strings::from(owned), c);
        let mut other = Strings::default();
        rows.iter().rev().for_each(|s| other.push(s));
        assert_ne!(other.done(), c); // equal means equal row by row, not the same set of values
    }
}
