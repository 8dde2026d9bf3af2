//! The built-in predicates (`kconnect.transforms.predicates`) on native records.

use crate::json::read::R;
use crate::model::record::NRecord;
use crate::smt::Predicate;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// RecordIsTombstone: the record's value is null.
pub struct RecordIsTombstone;

impl Predicate for RecordIsTombstone {
    fn test(&mut self, _py: Python<'_>, rec: &NRecord) -> R<bool> {
        Ok(rec.value.is_null())
    }
}

pub fn of(kind: &str, _spec: &Bound<'_, PyDict>) -> PyResult<Box<dyn Predicate>> {
    Ok(match kind {
        "record_is_tombstone" => Box::new(RecordIsTombstone),
        _ => return Err(PyValueError::new_err(format!("no native predicate {kind}"))),
    })
}
