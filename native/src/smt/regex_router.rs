//! RegexRouter (`kconnect.transforms.regex_router`): the topic renamed when the whole name
//! matches a Java regex. Which topic a topic becomes is asked of the Python code (its Java
//! regex semantics) once per distinct topic and remembered.

use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::{NRecord, Topic, TopicName};
use crate::model::value::Str;
use crate::pyconv::from_py::str_of;
use crate::smt::common::func;
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::Arc;

/// Distinct topics remembered before the cache starts over (a router meets a handful).
const TOPIC_LIMIT: usize = 10_000;

/// The topic named by what a Python routing function returned (a str), or None (no match);
/// Fallback for anything else.
pub fn topic_of(got: &Bound<'_, PyAny>) -> R<Option<Topic>> {
    if got.is_none() {
        return Ok(None);
    }
    let name = unsafe { str_of(got.as_ptr()) }.ok_or(Fallback)?;
    Ok(Some(Arc::new(TopicName {
        name,
        py: PyObj::of(got),
    })))
}

pub struct RegexRouter {
    route: PyObj,
    /// per input topic, its new topic (None: the regex does not match)
    routes: HashMap<Str, Option<Topic>>,
}

impl RegexRouter {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<RegexRouter> {
        Ok(RegexRouter {
            route: func(spec, "route")?,
            routes: HashMap::new(),
        })
    }
}

impl Transform for RegexRouter {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let to = match self.routes.get(&rec.topic.name) {
            Some(to) => to.clone(),
            None => {
                let got = self.route.bind(py).call1((rec.topic.py.bind(py),)).map_err(|_| Fallback)?;
                let to = topic_of(&got)?;
                if self.routes.len() >= TOPIC_LIMIT {
                    self.routes.clear();
                }
                self.routes.insert(rec.topic.name.clone(), to.clone());
                to
            }
        };
        if let Some(t) = to {
            rec.topic = t;
        }
        Ok(Outcome::Keep)
    }
}
