//! InsertHeader (`kconnect.transforms.insert_header`): a header with a literal value added to
//! every record. The header's schema and value are the Python code's (`Values.parseString` of
//! the literal, at configure time), made native once here.

use crate::json::read::{Fallback, R};
use crate::model::record::{NHeader, NRecord};
use crate::model::schema::SchemaRef;
use crate::model::value::{Str, Value};
use crate::pyconv::from_py::value_of;
use crate::smt::common::{get, item, schema_of};
use crate::smt::{Outcome, Transform};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub struct InsertHeader {
    key: Str,
    schema: Option<SchemaRef>,
    value: Value,
    /// the value holds a Python object the native model does not represent: every record
    /// goes to the Python stage
    python_value: bool,
}

impl InsertHeader {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<InsertHeader> {
        let schema = schema_of(&item(spec, "schema")?)
            .map_err(|_| PyValueError::new_err("insert_header: not a schema"))?;
        let value = value_of(&item(spec, "value")?, schema.as_ref());
        Ok(InsertHeader {
            key: Str::new(get::<String>(spec, "header")?),
            python_value: value.holds_py(),
            schema,
            value,
        })
    }
}

impl Transform for InsertHeader {
    fn apply(&mut self, _py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        if self.python_value {
            return Err(Fallback);
        }
        rec.headers.get_or_insert_with(Vec::new).push(NHeader {
            key: self.key.clone(),
            schema: self.schema.clone(),
            // (a copy per record: lists and maps are mutable on the Python side)
            value: self.value.clone(),
        });
        Ok(Outcome::Keep)
    }
}
