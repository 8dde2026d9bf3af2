//! DropHeaders (`kconnect.transforms.drop_headers`): every header whose key is listed removed.

use crate::json::read::R;
use crate::model::record::NRecord;
use crate::model::value::Str;
use crate::smt::common::get;
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub struct DropHeaders {
    names: Vec<Str>,
}

impl DropHeaders {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<DropHeaders> {
        let names: Vec<String> = get(spec, "headers")?;
        Ok(DropHeaders {
            names: names.into_iter().map(Str::new).collect(),
        })
    }
}

impl Transform for DropHeaders {
    fn apply(&mut self, _py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        if let Some(headers) = rec.headers.as_mut() {
            headers.retain(|h| !self.names.contains(&h.key));
        }
        Ok(Outcome::Keep)
    }
}
