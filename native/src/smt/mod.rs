//! The built-in transformations and predicates on native records.
//!
//! Each built-in SMT (`kconnect.transforms`) describes itself once, when the chain is built:
//! `native_step()` returns `(kind, spec)`, a dict of its settings and of the Python functions
//! that answer per-schema questions (the updated schema, a field's masked value...). The
//! matching `Transform` here runs the per-record work on native records and asks those
//! functions only once per input schema (`PlanCache`), so the schema rules stay the Python
//! code's own.
//!
//! Contract of `Transform::apply` and `Predicate::test`: `Err(Fallback)` leaves the record
//! exactly as it was given. The caller then hands that record, as it is, to the Python twin of
//! the stage, which transforms it or raises the error the pure-Python path raises -- so a
//! native step only does what it is sure of (types it expects, no nulls where the Python code
//! would refuse them) and checks everything before it changes anything.
//!
//! Everything runs on the task thread with the GIL held.

pub mod cast;
pub mod common;
pub mod drop_headers;
pub mod extract_field;
pub mod filter;
pub mod flatten;
pub mod header_from;
pub mod hoist_field;
pub mod insert_field;
pub mod insert_header;
pub mod mask_field;
pub mod predicates;
pub mod regex_router;
pub mod replace_field;
pub mod set_schema_metadata;
pub mod timestamp_converter;
pub mod timestamp_router;
pub mod value_to_key;

use crate::json::read::R;
use crate::model::record::NRecord;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// What a transformation did to a record.
pub enum Outcome {
    /// The record (changed in place, or not at all) goes on.
    Keep,
    /// The record is dropped (a transformation returned null).
    Drop,
}

pub trait Transform: Send + Sync {
    /// Transform `rec` in place. On `Err(Fallback)` the record is untouched.
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome>;
}

pub trait Predicate: Send + Sync {
    fn test(&mut self, py: Python<'_>, rec: &NRecord) -> R<bool>;
}

/// One stage of a chain: a transformation, its optional predicate and `negate`.
#[pyclass(module = "kconnect_native")]
pub struct Step {
    pub transform: Box<dyn Transform>,
    pub predicate: Option<Box<dyn Predicate>>,
    pub negate: bool,
}

fn transform_of(kind: &str, spec: &Bound<'_, PyDict>) -> PyResult<Box<dyn Transform>> {
    Ok(match kind {
        "cast" => Box::new(cast::Cast::new(spec)?),
        "drop_headers" => Box::new(drop_headers::DropHeaders::new(spec)?),
        "extract_field" => Box::new(extract_field::ExtractField::new(spec)?),
        "filter" => Box::new(filter::Filter),
        "flatten" => Box::new(flatten::Flatten::new(spec)?),
        "header_from" => Box::new(header_from::HeaderFrom::new(spec)?),
        "hoist_field" => Box::new(hoist_field::HoistField::new(spec)?),
        "insert_field" => Box::new(insert_field::InsertField::new(spec)?),
        "insert_header" => Box::new(insert_header::InsertHeader::new(spec)?),
        "mask_field" => Box::new(mask_field::MaskField::new(spec)?),
        "regex_router" => Box::new(regex_router::RegexRouter::new(spec)?),
        "replace_field" => Box::new(replace_field::ReplaceField::new(spec)?),
        "set_schema_metadata" => Box::new(set_schema_metadata::SetSchemaMetadata::new(spec)?),
        "timestamp_converter" => Box::new(timestamp_converter::TimestampConverter::new(spec)?),
        "timestamp_router" => Box::new(timestamp_router::TimestampRouter::new(spec)?),
        "value_to_key" => Box::new(value_to_key::ValueToKey::new(spec)?),
        _ => return Err(PyValueError::new_err(format!("no native transformation {kind}"))),
    })
}

fn predicate_of(kind: &str, spec: &Bound<'_, PyDict>) -> PyResult<Box<dyn Predicate>> {
    predicates::of(kind, spec)
}

#[pymethods]
impl Step {
    /// A stage from the transformation's `(kind, spec)` and, when the stage has a predicate,
    /// the predicate's.
    #[new]
    #[pyo3(signature = (kind, spec, predicate=None, negate=false))]
    fn new(
        kind: &str,
        spec: Bound<'_, PyDict>,
        predicate: Option<(String, Bound<'_, PyDict>)>,
        negate: bool,
    ) -> PyResult<Step> {
        Ok(Step {
            transform: transform_of(kind, &spec)?,
            predicate: match predicate {
                Some((k, s)) => Some(predicate_of(&k, &s)?),
                None => None,
            },
            negate,
        })
    }
}

impl Step {
    /// The stage on one record: Ok(Keep/Drop) or Fallback (record untouched).
    #[inline]
    pub fn run(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        if let Some(p) = self.predicate.as_mut() {
            if p.test(py, rec)? == self.negate {
                return Ok(Outcome::Keep);
            }
        }
        self.transform.apply(py, rec)
    }
}
