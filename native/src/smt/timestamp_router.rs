//! TimestampRouter (`kconnect.transforms.timestamp_router`): the topic renamed from
//! `topic.format`, its `${topic}` and `${timestamp}` replaced (in that order, every
//! occurrence, as Java's `String.replace`) by the topic and the record's timestamp formatted
//! by the Python code's `JavaDateFormat`. The Python code also says how long a formatted text
//! lasts (`period_ms`: a day for a date-only pattern...), so the text is asked once per
//! period and topic names are made once per topic and period. A record without a timestamp is
//! the Python stage's (it raises).

use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::{NRecord, Topic, TopicName};
use crate::model::value::Str;
use crate::smt::common::{func, get};
use crate::smt::{Outcome, Transform};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::Arc;

/// Entries remembered before a cache starts over.
const LIMIT: usize = 10_000;

pub struct TimestampRouter {
    topic_format: String,
    format: PyObj,
    period: i64,
    /// per period (timestamp / period), the formatted timestamp
    texts: HashMap<i64, Str>,
    /// per input topic and period, the new topic
    topics: HashMap<(Str, i64), Topic>,
    /// the last input topic, period and new topic (a batch mostly shares them)
    last: Option<(Topic, i64, Topic)>,
}

impl TimestampRouter {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<TimestampRouter> {
        let period: i64 = get(spec, "period_ms")?;
        if period <= 0 {
            return Err(PyValueError::new_err("timestamp_router: period_ms must be positive"));
        }
        Ok(TimestampRouter {
            topic_format: get(spec, "topic_format")?,
            format: func(spec, "format")?,
            period,
            texts: HashMap::new(),
            topics: HashMap::new(),
            last: None,
        })
    }

    fn text(&mut self, py: Python<'_>, ts: i64, bucket: i64) -> R<Str> {
        if let Some(t) = self.texts.get(&bucket) {
            return Ok(t.clone());
        }
        let got = self.format.bind(py).call1((ts,)).map_err(|_| Fallback)?;
        let text = Str::new(got.extract::<&str>().map_err(|_| Fallback)?);
        if self.texts.len() >= LIMIT {
            self.texts.clear();
        }
        self.texts.insert(bucket, text.clone());
        Ok(text)
    }
}

impl Transform for TimestampRouter {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let ts = rec.timestamp.ok_or(Fallback)?;
        let bucket = ts.div_euclid(self.period);
        if let Some((from, b, to)) = &self.last {
            if *b == bucket && Arc::ptr_eq(from, &rec.topic) {
                rec.topic = to.clone();
                return Ok(Outcome::Keep);
            }
        }
        let k = (rec.topic.name.clone(), bucket);
        let to = match self.topics.get(&k) {
            Some(t) => t.clone(),
            None => {
                let text = self.text(py, ts, bucket)?;
                let name = self
                    .topic_format
                    .replace("${topic}", &rec.topic.name)
                    .replace("${timestamp}", &text);
                let py_name = unsafe { crate::pyconv::to_py::new_str(py, &name) }.map_err(|_| Fallback)?;
                let t = Arc::new(TopicName {
                    name: Str::new(name),
                    py: py_name,
                });
                if self.topics.len() >= LIMIT {
                    self.topics.clear();
                }
                self.topics.insert(k, t.clone());
                t
            }
        };
        self.last = Some((rec.topic.clone(), bucket, to.clone()));
        rec.topic = to;
        Ok(Outcome::Keep)
    }
}
