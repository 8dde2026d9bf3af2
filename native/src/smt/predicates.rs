//! The built-in predicates (`kconnect.transforms.predicates`) on native records.

use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::NRecord;
use crate::model::value::Str;
use crate::smt::common::{func, get};
use crate::smt::Predicate;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;

/// RecordIsTombstone: the record's value is null.
pub struct RecordIsTombstone;

impl Predicate for RecordIsTombstone {
    fn test(&mut self, _py: Python<'_>, rec: &NRecord) -> R<bool> {
        Ok(rec.value.is_null())
    }
}

/// HasHeaderKey: the record has a header called `name`.
pub struct HasHeaderKey {
    name: Str,
}

impl Predicate for HasHeaderKey {
    fn test(&mut self, _py: Python<'_>, rec: &NRecord) -> R<bool> {
        Ok(rec.headers.as_ref().is_some_and(|h| h.iter().any(|x| x.key == self.name)))
    }
}

/// Distinct topics remembered before the cache starts over.
const TOPIC_LIMIT: usize = 10_000;

/// TopicNameMatches: the whole topic name matches a Java regex. Whether a topic matches is
/// asked of the Python code (its Java regex semantics) once per distinct topic.
pub struct TopicNameMatches {
    matches: PyObj,
    known: HashMap<Str, bool>,
}

impl Predicate for TopicNameMatches {
    fn test(&mut self, py: Python<'_>, rec: &NRecord) -> R<bool> {
        if let Some(&m) = self.known.get(&rec.topic.name) {
            return Ok(m);
        }
        let got = self.matches.bind(py).call1((rec.topic.py.bind(py),)).map_err(|_| Fallback)?;
        let m: bool = got.extract().map_err(|_| Fallback)?;
        if self.known.len() >= TOPIC_LIMIT {
            self.known.clear();
        }
        self.known.insert(rec.topic.name.clone(), m);
        Ok(m)
    }
}

pub fn of(kind: &str, spec: &Bound<'_, PyDict>) -> PyResult<Box<dyn Predicate>> {
    Ok(match kind {
        "record_is_tombstone" => Box::new(RecordIsTombstone),
        "has_header_key" => Box::new(HasHeaderKey {
            name: Str::new(get::<String>(spec, "name")?),
        }),
        "topic_name_matches" => Box::new(TopicNameMatches {
            matches: func(spec, "matches")?,
            known: HashMap::new(),
        }),
        _ => return Err(PyValueError::new_err(format!("no native predicate {kind}"))),
    })
}
