//! PyO3 bindings of tcplab-sim: convert, call, convert back. No logic lives here.
//! Results cross as JSON text (one serde definition, `tcplab_sim::stats`), which the Python
//! side turns into polars DataFrames. Errors become `tcplab._core.ScenarioError` (a
//! ValueError); a Rust panic becomes a RuntimeError, never a crash of the interpreter.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
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

/// Runs a scenario and returns its results as JSON text.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", overrides = Vec::new()))]
fn run_json(
    py: Python<'_>,
    text: String,
    format: &str,
    overrides: Vec<(String, String)>,
) -> PyResult<String> {
    let format = format.to_string();
    py.allow_threads(move || {
        guarded(|| {
            let sc = parse_doc(&text, &format, &overrides)?;
            let result = tcplab_sim::run(&sc);
            Ok(serde_json::to_string(&result).expect("results serialize"))
        })
    })
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

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_json, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    m.add_function(wrap_pyfunction!(jacobson_series, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
