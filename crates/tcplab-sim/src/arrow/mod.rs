//! A run's results as Arrow record batches (feature `arrow`): the tables (`run`, `flows`,
//! `traffic`, `links`, `totals`) and every trace (`packets`, `cwnd`, `queue`, `ns2_vars`),
//! with the columns, types and meanings of `docs/traces.md`. The Python binding hands them to
//! Python through the Arrow C data interface, where they become polars frames without a copy.
//! The column builders below are the only place that maps Rust types to Arrow types.

pub mod analysis;
mod results;
mod traces;

pub use results::{flows, links, run, totals, traffic};
pub use traces::{cwnd, ns2_vars, packets, queue};

use crate::stats::RunResult;
use arrow_array::types::UInt32Type;
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use std::sync::Arc;

/// Every table and trace of a run, by name, in a fixed order. Traces that were not recorded
/// are empty tables with their full schema.
pub fn tables(r: &RunResult) -> Result<Vec<(&'static str, RecordBatch)>, ArrowError> {
    let names: Vec<&str> = r.links.iter().map(|l| l.link.as_str()).collect();
    Ok(vec![
        ("run", run(r)?),
        ("flows", flows(&r.flows)?),
        ("traffic", traffic(&r.traffic)?),
        ("links", links(&r.links)?),
        ("totals", totals(&r.totals)?),
        ("packets", packets(&r.traces.packets, &names)?),
        ("cwnd", cwnd(&r.traces.cwnd)?),
        ("queue", queue(&r.traces.queue, &names)?),
        ("ns2_vars", ns2_vars(&r.traces.ns2_vars)?),
    ])
}

/// One column: its field and its array.
type Column = (Field, ArrayRef);

fn batch(columns: Vec<Column>) -> Result<RecordBatch, ArrowError> {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns.into_iter().unzip();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

fn u32s(name: &str, v: impl Iterator<Item = u32>) -> Column {
    let a = UInt32Array::from_iter_values(v);
    (Field::new(name, DataType::UInt32, false), Arc::new(a))
}

fn u64s(name: &str, v: impl Iterator<Item = u64>) -> Column {
    let a = UInt64Array::from_iter_values(v);
    (Field::new(name, DataType::UInt64, false), Arc::new(a))
}

/// A nullable u64 column (None is null).
fn opt_u64s(name: &str, v: impl Iterator<Item = Option<u64>>) -> Column {
    let a: UInt64Array = v.collect();
    (Field::new(name, DataType::UInt64, true), Arc::new(a))
}

/// An f64 column; NaN stays NaN (a value that could not be computed, e.g. a mean of nothing).
fn f64s(name: &str, v: impl Iterator<Item = f64>) -> Column {
    let a = Float64Array::from_iter_values(v);
    (Field::new(name, DataType::Float64, false), Arc::new(a))
}

/// A nullable f64 column (None is null: the quantity does not apply).
fn opt_f64s(name: &str, v: impl Iterator<Item = Option<f64>>) -> Column {
    let a: Float64Array = v.collect();
    (Field::new(name, DataType::Float64, true), Arc::new(a))
}

fn bools(name: &str, v: impl Iterator<Item = bool>) -> Column {
    let a: BooleanArray = v.map(Some).collect();
    (Field::new(name, DataType::Boolean, false), Arc::new(a))
}

fn strs<'a>(name: &str, v: impl Iterator<Item = &'a str>) -> Column {
    let a = StringArray::from_iter_values(v);
    (Field::new(name, DataType::Utf8, false), Arc::new(a))
}

/// A dictionary-encoded string column (polars: Categorical): `keys` index `values`; a None
/// key is null. Used for names from a small set (link names, event kinds, causes). A key
/// outside `values` is an error.
fn dict(
    name: &str,
    keys: impl Iterator<Item = Option<u32>>,
    values: &[&str],
    nullable: bool,
) -> Result<Column, ArrowError> {
    let keys: UInt32Array = keys.collect();
    let values: ArrayRef = Arc::new(StringArray::from_iter_values(values.iter()));
    let a = DictionaryArray::<UInt32Type>::try_new(keys, values)?;
    let ty = DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8));
    Ok((Field::new(name, ty, nullable), Arc::new(a)))
}

#[cfg(test)]
mod tests;
