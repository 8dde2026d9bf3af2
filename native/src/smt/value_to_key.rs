//! ValueToKey (`kconnect.transforms.value_to_key`): the key replaced by a struct of listed
//! fields of the value. With a schema the Python code names, per value schema, the key schema
//! and the value field each key field takes; schemaless the key is Java's
//! `new HashMap<>(fields.size())` of the value map's entries.

use crate::java::hash::MapKind;
use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::NRecord;
use crate::model::schema::SchemaRef;
use crate::model::value::{Str, Value};
use crate::smt::common::{call, field_value, func, get, java_order, map_get, map_put, schema_of, string_keys, PlanCache};
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;

struct Plan {
    key_schema: SchemaRef,
    /// per key field, the value field it takes
    sources: Vec<usize>,
}

pub struct ValueToKey {
    fields: Vec<Str>,
    rnwd: bool,
    plan_of: PyObj,
    plans: PlanCache<Plan>,
}

impl ValueToKey {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<ValueToKey> {
        let fields: Vec<String> = get(spec, "fields")?;
        Ok(ValueToKey {
            fields: fields.into_iter().map(Str::new).collect(),
            rnwd: get(spec, "replace_null_with_default")?,
            plan_of: func(spec, "plan")?,
            plans: PlanCache::default(),
        })
    }
}

impl Transform for ValueToKey {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        if rec.value_schema.is_none() {
            let Value::Map(entries) = &rec.value else {
                return Err(Fallback); // (a null value too: the Python stage raises)
            };
            if !string_keys(entries) {
                return Err(Fallback);
            }
            let mut key: Vec<(Value, Value)> = Vec::with_capacity(self.fields.len());
            for name in &self.fields {
                map_put(&mut key, name, map_get(entries, name).cloned().unwrap_or(Value::Null));
            }
            rec.key_schema = None;
            rec.key = Value::Map(java_order(key, MapKind::HashWithCapacity(self.fields.len())));
            return Ok(Outcome::Keep);
        }
        // the Python stage works from the value struct's own schema (and puts that schema on
        // the record)
        let Value::Struct(sv) = &rec.value else {
            return Err(Fallback);
        };
        let schema = sv.schema.clone();
        let f = &self.plan_of;
        let plan = self.plans.get(&schema, || {
            let got = call(py, f, &schema)?;
            let (key_schema, sources): (Bound<'_, PyAny>, Vec<usize>) = got.extract().map_err(|_| Fallback)?;
            let key_schema = schema_of(&key_schema)?.ok_or(Fallback)?;
            if sources.len() != key_schema.fields.len() || sources.iter().any(|&i| i >= schema.fields.len()) {
                return Err(Fallback);
            }
            Ok(Plan { key_schema, sources })
        })?;
        let mut values = Vec::with_capacity(plan.sources.len());
        for (k, &i) in plan.sources.iter().enumerate() {
            let v = field_value(sv, i, self.rnwd);
            if v.is_null() && !plan.key_schema.fields[k].schema.optional {
                return Err(Fallback); // Struct.put refuses it, naming the field
            }
            values.push(v.clone());
        }
        rec.key_schema = Some(plan.key_schema.clone());
        rec.key = Value::new_struct(plan.key_schema.clone(), values);
        rec.value_schema = Some(schema);
        Ok(Outcome::Keep)
    }
}
