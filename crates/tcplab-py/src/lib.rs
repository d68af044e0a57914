//! PyO3 bindings of tcplab-sim: convert, call, convert back. No logic lives here.
//! A run's tables and traces cross as Arrow record batches (`tcplab_sim::arrow`, the columns
//! of docs/traces.md) through the Arrow PyCapsule interface: Python builds polars frames from
//! them without a copy and without JSON. The resolved scenario (a nested document of inputs)
//! crosses as JSON text. Errors become `tcplab._core.ScenarioError` (a ValueError); a Rust
//! panic becomes a RuntimeError, never a crash of the interpreter.

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, RecordBatch, RecordBatchIterator, StructArray};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use std::ffi::CString;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tcplab_sim::scenario;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be run: the message names the field."
);

/// Reads a scenario document: TOML text, or JSON text (what Python dicts become).
fn parse_doc(
    text: &str,
    format: &str,
    overrides: &[(String, String)],
) -> Result<tcplab_sim::Scenario, tcplab_sim::Error> {
    match format {
        "json" => {
            let mut doc: toml::Value = serde_json::from_str(text).map_err(|e| {
                tcplab_sim::Error::Toml(format!("scenario is not a table of TOML values: {e}"))
            })?;
            for (p, v) in overrides {
                scenario::set_path(&mut doc, p, v)?;
            }
            tcplab_sim::load_value(doc)
        }
        _ => tcplab_sim::load(text, overrides),
    }
}

fn guarded<T>(f: impl FnOnce() -> Result<T, tcplab_sim::Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(ScenarioError::new_err(e.to_string())),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(PyRuntimeError::new_err(format!(
                "internal error in the simulator (please report it): {msg}"
            )))
        }
    }
}

fn internal(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(format!("internal error in the simulator (please report it): {e}"))
}

/// One table of a run's results: an Arrow record batch that Python reads through the Arrow
/// PyCapsule interface (`pl.DataFrame(table)`, `pyarrow.table(table)`), without a copy.
#[pyclass(frozen, module = "tcplab._core")]
struct ArrowTable {
    batch: RecordBatch,
}

#[pymethods]
impl ArrowTable {
    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        let schema = self.batch.schema();
        schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "ArrowTable({} rows: {})",
            self.batch.num_rows(),
            self.column_names().join(", ")
        )
    }

    /// The schema as an `arrow_schema` capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.batch.schema().as_ref()).map_err(internal)?;
        PyCapsule::new(py, schema, Some(CString::from(c"arrow_schema")))
    }

    /// The batch as a struct array: (`arrow_schema`, `arrow_array`) capsules. A requested
    /// schema is not honoured (the protocol lets a producer ignore it).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let data = StructArray::from(self.batch.clone()).into_data();
        let schema = FFI_ArrowSchema::try_from(data.data_type()).map_err(internal)?;
        let array = FFI_ArrowArray::new(&data);
        Ok((
            PyCapsule::new(py, schema, Some(CString::from(c"arrow_schema")))?,
            PyCapsule::new(py, array, Some(CString::from(c"arrow_array")))?,
        ))
    }

    /// The batch as a one-batch stream: an `arrow_array_stream` capsule.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new([Ok(self.batch.clone())], self.batch.schema());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new(py, stream, Some(CString::from(c"arrow_array_stream")))
    }
}

/// Runs a scenario and returns its tables and traces by name (`tcplab_sim::arrow::tables`:
/// run, flows, traffic, links, totals, packets, cwnd, queue, ns2_vars).
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn run_tables<'py>(
    py: Python<'py>,
    text: String,
    format: &str,
    overrides: Vec<(String, String)>,
) -> PyResult<Bound<'py, PyDict>> {
    let format = format.to_string();
    let tables = py.allow_threads(move || {
        guarded(|| {
            let sc = parse_doc(&text, &format, &overrides)?;
            // Every 65,536 events, take the GIL for a moment to run Python's signal handlers:
            // Ctrl-C (or a notebook's interrupt) raises KeyboardInterrupt and stops the run.
            let mut signal = None;
            let result = tcplab_sim::run_with(&sc, || {
                Python::with_gil(|py| py.check_signals())
                    .map_err(|e| signal = Some(e))
                    .is_err()
            });
            if let Some(r) = &result {
                // trace.pcap: the capture files, each written whole or not at all.
                tcplab_sim::write_captures(r)?;
            }
            Ok(result.map(|r| tcplab_sim::arrow::tables(&r)).ok_or(signal))
        })
    })?;
    let tables = match tables {
        Ok(t) => t,
        Err(Some(e)) => return Err(e),
        Err(None) => return Err(internal("the run stopped without a signal")),
    };
    let out = PyDict::new(py);
    for (name, batch) in tables.map_err(internal)? {
        out.set_item(name, Py::new(py, ArrowTable { batch })?)?;
    }
    Ok(out)
}

/// Parses, applies overrides and validates; returns the resolved scenario (all defaults
/// filled in) as JSON text.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn resolve_json(text: String, format: &str, overrides: Vec<(String, String)>) -> PyResult<String> {
    guarded(|| {
        let sc = parse_doc(&text, format, &overrides)?;
        Ok(serde_json::to_string(&sc).expect("scenario serializes"))
    })
}

/// The JSON Schema of scenario files.
#[pyfunction]
fn schema() -> String {
    scenario::json_schema()
}

/// Parses a unit string of one kind (duration, rate, size, probability) to its SI value,
/// exactly as scenario files are read.
#[pyfunction]
fn parse_quantity(kind: &str, text: &str) -> PyResult<f64> {
    use tcplab_sim::time::*;
    let r = match kind {
        "duration" => parse_duration(text),
        "rate" => parse_rate(text),
        "size" => parse_size(text),
        "probability" => parse_probability(text),
        _ => {
            return Err(PyValueError::new_err(format!(
                "kind: {kind:?} (expected duration, rate, size or probability)"
            )))
        }
    };
    r.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Jacobson & Karels 1988 App. A over integer tick samples, exactly as the simulator's
/// coarse-clock timer computes it: (sa, sv, rto ticks) after each sample. `gain` 4 is the
/// a + 4v rule, 2 the SIGCOMM '88 a + 2v rule. No clamping (min 1 tick).
#[pyfunction]
#[pyo3(signature = (samples, gain = 4))]
fn jacobson_series(samples: Vec<u64>, gain: u32) -> PyResult<Vec<(i64, i64, u64)>> {
    use tcplab_sim::tcp::rto::{Jacobson88, TickClock, VarianceGain};
    use tcplab_sim::time::SimTime;
    let gain = match gain {
        4 => VarianceGain::Four,
        2 => VarianceGain::Two,
        _ => return Err(PyValueError::new_err(format!("gain: {gain} (expected 4 or 2)"))),
    };
    let clock = TickClock {
        tick_ns: 1,
        phase_ns: 0,
    };
    let mut e = Jacobson88::new(clock, gain, SimTime(1), SimTime(1), SimTime(u64::MAX / 4), false);
    Ok(samples
        .into_iter()
        .map(|m| {
            e.sample_ticks(m);
            let (sa, sv) = e.sa_sv();
            (sa, sv, e.rto_ticks())
        })
        .collect())
}

/// Analyzes a capture file (`tcplab_sim::capture::analyze`): its tables (connections,
/// segments, rtt) and a summary (counts, warnings). `from_s`/`to_s` are seconds after the
/// capture's first packet.
#[pyfunction]
#[pyo3(signature = (path, from_s = 0.0, to_s = None, record_conn = None, max_points = 1_000_000))]
fn analyze_capture<'py>(
    py: Python<'py>,
    path: String,
    from_s: f64,
    to_s: Option<f64>,
    record_conn: Option<u32>,
    max_points: usize,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    use tcplab_sim::capture::analyze::{analyze, Options};
    let ns = |s: f64| (s * 1e9).round() as u64;
    let opt = Options {
        from_ns: ns(from_s),
        to_ns: to_s.map(ns),
        record_conn,
        max_points,
    };
    let result = py.allow_threads(move || {
        catch_unwind(AssertUnwindSafe(|| {
            let file = std::fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
            let a = analyze(std::io::BufReader::with_capacity(1 << 20, file), opt)
                .map_err(|e| format!("{path}: {e}"))?;
            let tables = tcplab_sim::arrow::analysis::tables(&a).map_err(|e| e.to_string())?;
            Ok::<_, String>((a, tables))
        }))
    });
    let (a, tables) = match result {
        Ok(Ok(v)) => v,
        Ok(Err(message)) => return Err(ScenarioError::new_err(message)),
        Err(_) => return Err(internal("the analyzer panicked")),
    };
    let out = PyDict::new(py);
    for (name, batch) in tables {
        out.set_item(name, Py::new(py, ArrowTable { batch })?)?;
    }
    let summary = PyDict::new(py);
    summary.set_item("records", a.records)?;
    summary.set_item("tcp_packets", a.tcp_packets)?;
    summary.set_item("connections", a.connections)?;
    summary.set_item("duration_s", (a.last_ns - a.first_ns) as f64 * 1e-9)?;
    summary.set_item("first_ns", a.first_ns)?;
    summary.set_item("truncated_file", a.truncated_file)?;
    summary.set_item("records_truncated", a.records_truncated)?;
    summary.set_item("skipped_not_tcp", a.skipped_not_tcp)?;
    summary.set_item("skipped_fragments", a.skipped_fragments)?;
    summary.set_item("skipped_cut_headers", a.skipped_cut_headers)?;
    summary.set_item("skipped_malformed", a.skipped_malformed)?;
    summary.set_item("warnings", a.warnings)?;
    Ok((out, summary))
}

/// An emulation (`tcplab_sim::emulate`): the scenario's flows as real TCP connections
/// through its simulated network in real time. `tcplab.emulate` creates the network
/// namespaces and TUN devices and runs the real endpoints; this object runs the network: `run`
/// blocks (without the GIL) until the scenario's end or `stop()`, and `clock()` tells other
/// threads the emulated time.
#[pyclass(frozen, module = "tcplab._core")]
struct Emulator {
    scenario: tcplab_sim::Scenario,
    starts: Vec<f64>,
    stop: std::sync::atomic::AtomicBool,
    t0: std::sync::OnceLock<std::time::Instant>,
}

#[pymethods]
impl Emulator {
    #[new]
    #[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
    fn new(text: String, format: &str, overrides: Vec<(String, String)>) -> PyResult<Self> {
        guarded(|| {
            let scenario = parse_doc(&text, format, &overrides)?;
            let sim = tcplab_sim::sim::Simulation::new(&scenario);
            let starts = (0..sim.foreground_flows() as u32)
                .map(|f| sim.flow_start(f).secs_f64())
                .collect();
            Ok(Emulator {
                scenario,
                starts,
                stop: Default::default(),
                t0: Default::default(),
            })
        })
    }

    /// When each flow starts, in seconds of emulated time.
    #[getter]
    fn flow_starts(&self) -> Vec<f64> {
        self.starts.clone()
    }

    /// Seconds since emulated time zero (None before `run` started).
    fn clock(&self) -> Option<f64> {
        self.t0.get().map(|t| t.elapsed().as_secs_f64())
    }

    /// Asks a running `run` to end now (its results cover what ran).
    fn stop(&self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Runs the network: `taps` holds one (sender fd, receiver fd) pair per flow. Returns the
    /// simulator's tables (as `run_tables`) and the self-check as a dict.
    #[pyo3(signature = (taps, pcap = None, snaplen = 128, max_packets = 2_000_000, spin_us = 20.0, realtime = false))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        taps: Vec<(i32, i32)>,
        pcap: Option<String>,
        snaplen: u32,
        max_packets: u64,
        spin_us: f64,
        realtime: bool,
    ) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
        use tcplab_sim::emulate::{self, Options, Taps};
        if !(spin_us.is_finite() && spin_us >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "spin_us: {spin_us} (expected a finite number of microseconds >= 0)"
            )));
        }
        let opt = Options {
            spin: std::time::Duration::from_nanos((spin_us * 1e3) as u64),
            realtime,
            pcap,
            snaplen,
            max_packets,
        };
        let taps: Vec<Taps> = taps
            .into_iter()
            .map(|(sender, receiver)| Taps { sender, receiver })
            .collect();
        let out = py.allow_threads(|| {
            guarded(|| {
                let sim = tcplab_sim::sim::Simulation::new(&self.scenario);
                let (result, check, capture) = emulate::run(sim, &taps, &opt, &self.stop, &self.t0)?;
                if let Some(c) = capture {
                    c.write()?;
                }
                Ok((tcplab_sim::arrow::tables(&result), check))
            })
        })?;
        let (tables, check) = out;
        let t = PyDict::new(py);
        for (name, batch) in tables.map_err(internal)? {
            t.set_item(name, Py::new(py, ArrowTable { batch })?)?;
        }
        let c = PyDict::new(py);
        c.set_item("wall_s", check.wall_s)?;
        c.set_item("packets_in", check.packets_in)?;
        c.set_item("bytes_in", check.bytes_in)?;
        c.set_item("packets_out", check.packets_out)?;
        c.set_item("bytes_out", check.bytes_out)?;
        c.set_item("packets_dropped", check.packets_dropped)?;
        c.set_item("packets_in_flight", check.packets_in_flight)?;
        c.set_item("write_errors", check.write_errors)?;
        c.set_item("max_packet", check.max_packet)?;
        c.set_item("ce_marked", check.ce_marked)?;
        c.set_item("busy_fraction", check.busy_fraction)?;
        c.set_item("realtime", check.realtime)?;
        c.set_item("events", check.events)?;
        c.set_item("stopped", check.stopped)?;
        c.set_item("captured", check.captured)?;
        c.set_item("capture_truncated", check.capture_truncated)?;
        for (name, l) in [("lateness", &check.lateness), ("wakeup", &check.wakeup)] {
            let q = l.quantiles_s(&[0.5, 0.9, 0.99, 0.999]);
            let d = PyDict::new(py);
            d.set_item("count", l.count())?;
            d.set_item("mean_s", l.mean_s())?;
            d.set_item("p50_s", q[0])?;
            d.set_item("p90_s", q[1])?;
            d.set_item("p99_s", q[2])?;
            d.set_item("p999_s", q[3])?;
            d.set_item("max_s", l.max_s())?;
            d.set_item("over_1ms", l.fraction_over(std::time::Duration::from_millis(1)))?;
            c.set_item(name, d)?;
        }
        Ok((t, c))
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_tables, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_capture, m)?)?;
    m.add_class::<ArrowTable>()?;
    m.add_class::<Emulator>()?;
    m.add_function(wrap_pyfunction!(resolve_json, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    m.add_function(wrap_pyfunction!(jacobson_series, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
