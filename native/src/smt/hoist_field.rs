//! HoistField$Key / HoistField$Value (`kconnect.transforms.hoist_field`): the key/value wrapped
//! in a struct (or, schemaless, a one-entry map) with one field.

use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::NRecord;
use crate::model::schema::SchemaRef;
use crate::model::value::{Str, Value};
use crate::smt::common::{call, func, get, put_ok, schema_of, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;

struct Plan {
    updated: SchemaRef,
}

pub struct HoistField {
    side: Side,
    field: Str,
    updated_schema: PyObj,
    plans: PlanCache<Plan>,
}

impl HoistField {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<HoistField> {
        Ok(HoistField {
            side: Side::of(spec)?,
            field: Str::new(get::<String>(spec, "field")?),
            updated_schema: func(spec, "updated_schema")?,
            plans: PlanCache::default(),
        })
    }
}

impl Transform for HoistField {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let key = self.side.key;
        let (schema, value) = rec.side(key);
        let Some(schema) = schema.clone() else {
            // Collections.singletonMap(field, value)
            let v = std::mem::replace(rec.side_mut(key).1, Value::Null);
            *rec.side_mut(key).1 = Value::Map(vec![(Value::Str(self.field.clone()), v)]);
            return Ok(Outcome::Keep);
        };
        if value.holds_py() {
            return Err(Fallback); // Struct.put validates it: the Python stage
        }
        let f = &self.updated_schema;
        let plan = self.plans.get(&schema, || {
            let updated = schema_of(&call(py, f, &schema)?)?.ok_or(Fallback)?;
            if updated.fields.len() != 1 {
                return Err(Fallback);
            }
            Ok(Plan { updated })
        })?;
        put_ok(&plan.updated.fields[0].schema, value)?;
        let (s, v) = rec.side_mut(key);
        let inner = std::mem::replace(v, Value::Null);
        *v = Value::new_struct(plan.updated.clone(), vec![inner]);
        *s = Some(plan.updated.clone());
        Ok(Outcome::Keep)
    }
}
