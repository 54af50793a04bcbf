//! Python face of the packet-level simulator: `Simulation(spec_json)`, `run_until(t_ps)`, `results()`.

use dcsim_core::metrics::{Column, Strings};
use dcsim_core::units::Time;
use dcsim_core::Sim;
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

/// Run `f`, turning an engine error into ValueError and a panic (a bug) into RuntimeError.
pub(crate) fn guarded<T>(f: impl FnOnce() -> dcsim_core::Result<T>) -> PyResult<T> {
    crate::no_panic(f)?.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A packet-level simulation built from a JSON scenario spec (see dcsim_core::scenario).
#[pyclass(module = "dcsim._core")]
pub struct Simulation {
    sim: Sim,
}

#[pymethods]
impl Simulation {
    /// Validate the spec and build the world. Raises ValueError("field: message").
    #[new]
    fn new(spec_json: &str) -> PyResult<Self> {
        Ok(Simulation { sim: guarded(|| Sim::from_json(spec_json))? })
    }

    /// Advance towards simulated time `t_ps` (capped at the end) with the GIL released, handling
    /// at most `max_events` events (None: no limit). Returns True when `t_ps` was reached. A front
    /// end calls this in a loop with a modest budget so that Ctrl-C and progress stay responsive.
    #[pyo3(signature = (t_ps, max_events=None))]
    fn run_until(&mut self, py: Python<'_>, t_ps: u64, max_events: Option<u64>) -> PyResult<bool> {
        let sim = &mut self.sim;
        py.detach(|| guarded(|| sim.run_until_budget(Time(t_ps), max_events.unwrap_or(u64::MAX))))
    }

    /// Run to the end.
    fn run(&mut self, py: Python<'_>) -> PyResult<()> {
        let sim = &mut self.sim;
        py.detach(|| guarded(|| sim.run()))
    }

    /// End the run here for a front end that stops it between two `run_until` calls and keeps
    /// `results()` as the run of 0 .. now: where a workload fired at now, the run ends 1 ps later
    /// (a run to now would not have fired it; the run cannot go on then); `now_ps` then says where.
    fn end_here(&mut self) -> PyResult<()> {
        guarded(|| self.sim.end_here())
    }

    #[getter]
    fn now_ps(&self) -> u64 {
        self.sim.now().0
    }

    #[getter]
    fn duration_ps(&self) -> u64 {
        self.sim.end().0
    }

    /// Whether the error the last `run_until` raised stopped the run at an instant's end with what
    /// it simulated intact, so that `results()` gives the run of 0 .. now (a memory stop by the
    /// queues or by running generated flows in a one-world run, not inside an instant); False
    /// after any other error, or none.
    #[getter]
    fn stop_keeps_run(&self) -> bool {
        self.sim.stop_keeps_run()
    }

    /// Flows holding transport state now (listed flows, and generated flows still running).
    fn active_flows(&self) -> usize {
        self.sim.active_flows()
    }

    /// Flow ids handed out so far (listed and generated flows).
    fn flows_created(&self) -> usize {
        self.sim.flows_created()
    }

    /// Packets sent / delivered / dropped / in flight and events so far.
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.sim.counters();
        let d = PyDict::new(py);
        d.set_item("events", c.events)?;
        d.set_item("sent_pkts", c.sent_pkts)?;
        d.set_item("delivered_pkts", c.delivered_pkts)?;
        d.set_item("dropped_pkts", c.dropped_pkts)?;
        d.set_item("in_flight_pkts", self.sim.in_flight())?;
        Ok(d)
    }

    /// All result tables: {table: {column: numpy array | list[str]}}. The columns are moved out
    /// of the engine (no copy): call it once, at the end; a second call raises ValueError ("the
    /// results were already taken"), and the run cannot go on after it.
    fn results<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let tables = guarded(|| self.sim.results())?;
        let out = PyDict::new(py);
        for t in tables {
            let cols = PyDict::new(py);
            for (name, col) in t.columns {
                match col {
                    Column::F64(v) => cols.set_item(name, PyArray1::from_vec(py, v))?,
                    Column::U64(v) => cols.set_item(name, PyArray1::from_vec(py, v))?,
                    Column::Bool(v) => cols.set_item(name, PyArray1::from_vec(py, v))?,
                    Column::Str(v) => cols.set_item(name, shared_strings(py, &v)?)?,
                }
            }
            out.set_item(t.name, cols)?;
        }
        Ok(out)
    }
}

/// A string column (the engine's codes and distinct values) as a list with one Python string per
/// distinct value: a flow table's `src`, `dst` and `protocol` repeat a few names over up to
/// millions of rows, which as a string each took ~55 B a row more: 300 000 flows held 364 MB
/// after the run, then 287 MB (MEASUREMENTS.md, 2026-11-29).
fn shared_strings<'py>(py: Python<'py>, v: &Strings) -> PyResult<Bound<'py, PyList>> {
    let made: Vec<Bound<'py, PyString>> = v.values().iter().map(|s| PyString::new(py, s)).collect();
    PyList::new(py, v.codes().iter().map(|&c| made[c as usize].clone()))
}

/// Check a JSON spec as the engine would before building it (every field, the documented
/// maxima, the memory bound), without allocating the world. Raises ValueError("field: message").
#[pyfunction]
fn validate_spec(spec_json: &str) -> PyResult<()> {
    guarded(|| dcsim_core::Spec::from_json(spec_json)?.check())
}

/// Resolve the automatic sampling intervals named in `auto` (e.g. "metrics.queue_interval"; the
/// spec holds their preferred, finest value): each kept or lengthened so that the run fits in
/// metrics.max_memory (see dcsim_core::sim::fit_sampling). Returns {field: interval_ps} as JSON
/// for the fields in `auto`, and for "metrics.monitor" (the default ports) how many of them are
/// sampled, or null for all. Raises ValueError("field: message") when the spec is invalid or the
/// budget cannot hold it.
#[pyfunction]
fn fit_sampling(spec_json: &str, auto: Vec<String>) -> PyResult<String> {
    guarded(|| {
        let mut spec = dcsim_core::Spec::from_json(spec_json)?;
        spec.validate()?;
        dcsim_core::sim::fit_sampling(&mut spec, &auto)?;
        let m = &spec.metrics;
        let mut out = serde_json::Map::new();
        for a in &auto {
            if a == "metrics.monitor" {
                out.insert(a.clone(), m.monitor_first.into());
                continue;
            }
            let iv = match a.as_str() {
                "metrics.queue_interval" => m.queue_interval_ps,
                "metrics.throughput_interval" => m.throughput_interval_ps,
                "metrics.cwnd_interval" => m.cwnd_interval_ps,
                _ => spec.l2.as_ref().map_or(0, |l| l.rate_interval_ps),
            };
            out.insert(a.clone(), iv.into());
        }
        Ok(serde_json::Value::Object(out).to_string())
    })
}

/// The engine's defaults as JSON (packet sizes, TCP and metrics defaults).
#[pyfunction]
fn engine_defaults() -> String {
    dcsim_core::scenario::defaults().to_string()
}

/// A protocol or queue table given as JSON; a malformed one is an error about `field`.
fn parse<T: serde::de::DeserializeOwned>(json: &str, field: &str) -> dcsim_core::Result<T> {
    serde_json::from_str(json).map_err(|e| dcsim_core::Error::Invalid { field: field.into(), msg: e.to_string() })
}

/// A range check's answer for front ends: `null`, or `{"field", "message"}` naming the parameter
/// as scenarios write it (an error of another kind is about `field`).
fn refusal(checked: dcsim_core::Result<()>, field: &str) -> String {
    match checked {
        Ok(()) => serde_json::Value::Null,
        Err(dcsim_core::Error::Invalid { field, msg }) => serde_json::json!({"field": field, "message": msg}),
        Err(e) => serde_json::json!({"field": field, "message": e.to_string()}),
    }
    .to_string()
}

/// The facts of one protocol (the engine's `protocol` table of a flow, as JSON): whether it is
/// ECN-capable, cuts once per window on ECN-Echo, and keeps DCTCP's alpha; asked of its controller.
#[pyfunction]
fn protocol_facts(protocol_json: &str) -> PyResult<String> {
    guarded(|| Ok(parse::<dcsim_core::scenario::ProtocolSpec>(protocol_json, "protocol")?.facts().to_string()))
}

/// The engine's range checks of one protocol's parameters (its `protocol` table, as JSON):
/// [`refusal`] of [`dcsim_core::cc::Protocol::check`], so that front ends refuse what the engine
/// would, when the scenario is loaded.
#[pyfunction]
fn protocol_check(protocol_json: &str) -> PyResult<String> {
    guarded(|| {
        let p: dcsim_core::scenario::ProtocolSpec = parse(protocol_json, "protocol")?;
        Ok(refusal(p.check(&|name| name.to_string()), "protocol"))
    })
}

/// The facts of one queue discipline (the engine's `aqm` table, as JSON; [`AqmSpec::facts`]):
/// whether it marks ECN-capable packets, keeps RED's average, drops packets already queued.
///
/// [`AqmSpec::facts`]: dcsim_core::aqm::AqmSpec::facts
#[pyfunction]
fn queue_facts(aqm_json: &str) -> PyResult<String> {
    guarded(|| Ok(parse::<dcsim_core::aqm::AqmSpec>(aqm_json, "aqm")?.facts().to_string()))
}

/// The engine's range checks of one queue (its `queue` table, as JSON: capacity and `aqm`) for
/// packets of `packet_bytes`: [`refusal`] of [`dcsim_core::aqm::QueueKind::check`], so that front
/// ends refuse what the engine would, when the scenario is loaded.
#[pyfunction]
fn queue_check(queue_json: &str, packet_bytes: u32) -> PyResult<String> {
    guarded(|| {
        let q: dcsim_core::scenario::QueueSpec = parse(queue_json, "aqm")?;
        Ok(refusal(q.aqm.check(&|name| name.to_string(), q.capacity, packet_bytes), "aqm"))
    })
}

/// The engine's range checks of an L2 scheme's parameters (the `l2.scheme` table, as JSON, with
/// its `kind`): [`refusal`] of [`dcsim_core::l2::L2Spec::validate`], so that front ends refuse what
/// the engine would, when the scenario is loaded (a review: `Ha = 1e300` passed
/// `Scenario.from_dict` and was refused only by `simulate`).
#[pyfunction]
fn l2_check(scheme_json: &str) -> PyResult<String> {
    guarded(|| {
        let s: dcsim_core::l2::L2Spec = parse(scheme_json, "l2")?;
        Ok(refusal(s.validate(""), "l2"))
    })
}

/// QCN's quantized feedback of a congestion point whose Fb is `fb_bytes` (<= 0), with `qeq_bytes` and
/// weight `w` ([`dcsim_core::l2::qcn::quantize`]).
#[pyfunction]
fn qcn_quantize(qeq_bytes: f64, w: f64, fb_bytes: f64) -> u8 {
    dcsim_core::l2::qcn::quantize(qeq_bytes, w, fb_bytes)
}

/// E[S] in bytes of a workload's flow sizes (its engine `sizes` table, as JSON) as the engine
/// draws them ([`dcsim_core::workload::SizeSpec::mean_bytes`]): the mean a Poisson workload's
/// arrival rate divides its offered load by.
#[pyfunction]
fn size_mean_bytes(sizes_json: &str) -> PyResult<f64> {
    guarded(|| Ok(parse::<dcsim_core::workload::SizeSpec>(sizes_json, "sizes")?.mean_bytes()))
}

/// E[ceil(S / mss)]: a flow's mean packet count (`SizeSpec::mean_packets`).
#[pyfunction]
fn size_mean_packets(sizes_json: &str, mss_bytes: u64) -> PyResult<f64> {
    guarded(|| Ok(parse::<dcsim_core::workload::SizeSpec>(sizes_json, "sizes")?.mean_packets(mss_bytes)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(size_mean_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(size_mean_packets, m)?)?;
    m.add_function(wrap_pyfunction!(engine_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(protocol_facts, m)?)?;
    m.add_function(wrap_pyfunction!(protocol_check, m)?)?;
    m.add_function(wrap_pyfunction!(queue_facts, m)?)?;
    m.add_function(wrap_pyfunction!(queue_check, m)?)?;
    m.add_function(wrap_pyfunction!(l2_check, m)?)?;
    m.add_function(wrap_pyfunction!(qcn_quantize, m)?)?;
    m.add_function(wrap_pyfunction!(validate_spec, m)?)?;
    m.add_function(wrap_pyfunction!(fit_sampling, m)?)?;
    Ok(())
}
