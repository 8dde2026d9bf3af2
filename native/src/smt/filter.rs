//! Filter (`kconnect.transforms.filter`): drops every record it is applied to (usually behind
//! a predicate).

use crate::json::read::R;
use crate::model::record::NRecord;
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;

pub struct Filter;

impl Transform for Filter {
    fn apply(&mut self, _py: Python<'_>, _rec: &mut NRecord) -> R<Outcome> {
        Ok(Outcome::Drop)
    }
}
