//! SetSchemaMetadata$Key / SetSchemaMetadata$Value (`kconnect.transforms.set_schema_metadata`):
//! the key/value schema renamed and/or re-versioned. The updated schema is the Python code's
//! (once per input schema); a struct takes it, its null fields replaced by their defaults with
//! `replace.null.with.default`, as the Python stage rebuilds it. Other values keep as they are.

use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::NRecord;
use crate::model::schema::SchemaRef;
use crate::model::value::Value;
use crate::smt::common::{call, field_value, func, get, null_ok, schema_of, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

struct Plan {
    updated: SchemaRef,
}

pub struct SetSchemaMetadata {
    side: Side,
    rnwd: bool,
    updated_schema: PyObj,
    plans: PlanCache<Plan>,
}

impl SetSchemaMetadata {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<SetSchemaMetadata> {
        Ok(SetSchemaMetadata {
            side: Side::of(spec)?,
            rnwd: get(spec, "replace_null_with_default")?,
            updated_schema: func(spec, "updated_schema")?,
            plans: PlanCache::default(),
        })
    }
}

impl Transform for SetSchemaMetadata {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let key = self.side.key;
        let (schema, value) = rec.side(key);
        let Some(schema) = schema.clone() else {
            if value.is_null() {
                return Ok(Outcome::Keep);
            }
            return Err(Fallback); // a schema is required: the Python stage raises
        };
        match value {
            // (a Python object may be a Struct subclass, which the Python stage rebuilds)
            Value::Py(_) => return Err(Fallback),
            Value::Struct(sv) if !Arc::ptr_eq(&sv.schema, &schema) => return Err(Fallback),
            _ => {}
        }
        let f = &self.updated_schema;
        let plan = self.plans.get(&schema, || {
            let updated = schema_of(&call(py, f, &schema)?)?.ok_or(Fallback)?;
            if updated.fields.len() != schema.fields.len() {
                return Err(Fallback);
            }
            Ok(Plan { updated })
        })?;
        let rnwd = self.rnwd;
        if let Value::Struct(sv) = rec.side(key).1 {
            for (i, f) in plan.updated.fields.iter().enumerate() {
                null_ok(&f.schema, field_value(sv, i, rnwd))?;
            }
        }
        let (s, v) = rec.side_mut(key);
        if let Value::Struct(sv) = v {
            if rnwd {
                for i in 0..sv.values.len() {
                    if sv.values[i].is_null() {
                        if let Some(d) = sv.schema.fields[i].schema.default_value() {
                            sv.values[i] = d.clone();
                        }
                    }
                }
            }
            sv.schema = plan.updated.clone();
        }
        *s = Some(plan.updated.clone());
        Ok(Outcome::Keep)
    }
}
