//! HeaderFrom$Key / HeaderFrom$Value (`kconnect.transforms.header_from`): fields of the
//! key/value copied or moved into headers (`fields[i]` to header `headers[i]`). With a schema
//! the Python code names, per input schema, the updated schema (the fields left after a move,
//! or the schema itself for a copy), the input field of each of its fields and of each header;
//! a header carries its field's schema. Schemaless, headers carry no schema and the map is
//! Java's `new HashMap<>(value)` less the moved fields.

use crate::java::hash::MapKind;
use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::{NHeader, NRecord};
use crate::model::schema::SchemaRef;
use crate::model::value::{Str, Value};
use crate::smt::common::{call, field_value, func, get, java_order, map_get, null_ok, schema_of, string_keys, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

struct Plan {
    updated: SchemaRef,
    /// per updated field, the input field it takes (move only)
    sources: Vec<usize>,
    /// per header, its input field
    header_fields: Vec<usize>,
}

pub struct HeaderFrom {
    side: Side,
    fields: Vec<Str>,
    headers: Vec<Str>,
    moving: bool,
    rnwd: bool,
    plan_of: PyObj,
    plans: PlanCache<Plan>,
}

impl HeaderFrom {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<HeaderFrom> {
        let fields: Vec<String> = get(spec, "fields")?;
        let headers: Vec<String> = get(spec, "headers")?;
        if fields.len() != headers.len() {
            return Err(PyValueError::new_err("header_from: as many headers as fields expected"));
        }
        Ok(HeaderFrom {
            side: Side::of(spec)?,
            fields: fields.into_iter().map(Str::new).collect(),
            headers: headers.into_iter().map(Str::new).collect(),
            moving: get(spec, "move")?,
            rnwd: get(spec, "replace_null_with_default")?,
            plan_of: func(spec, "plan")?,
            plans: PlanCache::default(),
        })
    }
}

impl Transform for HeaderFrom {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let key = self.side.key;
        let (schema, value) = rec.side(key);
        let Some(schema) = schema.clone() else {
            let Value::Map(entries) = value else {
                return Err(Fallback); // (a null too: the Python stage raises)
            };
            if !string_keys(entries) {
                return Err(Fallback);
            }
            let added: Vec<NHeader> = self
                .fields
                .iter()
                .zip(&self.headers)
                .map(|(f, h)| NHeader {
                    key: h.clone(),
                    schema: None,
                    value: map_get(entries, f).cloned().unwrap_or(Value::Null),
                })
                .collect();
            let v = rec.side_mut(key).1;
            let Value::Map(entries) = std::mem::replace(v, Value::Null) else { unreachable!() };
            let n = entries.len();
            let mut out = entries;
            if self.moving {
                out.retain(|(k, _)| !matches!(k, Value::Str(s) if self.fields.contains(s)));
            }
            // removals leave a Java HashMap's table as it was: order as the copy of all n
            *v = Value::Map(java_order(out, MapKind::HashCopyOf(n)));
            rec.headers.get_or_insert_with(Vec::new).extend(added);
            return Ok(Outcome::Keep);
        };
        let Value::Struct(sv) = value else {
            return Err(Fallback);
        };
        if !Arc::ptr_eq(&sv.schema, &schema) {
            return Err(Fallback);
        }
        let f = &self.plan_of;
        let moving = self.moving;
        let n_headers = self.headers.len();
        let plan = self.plans.get(&schema, || {
            let got = call(py, f, &schema)?;
            let (updated, sources, header_fields): (Bound<'_, PyAny>, Vec<usize>, Vec<usize>) =
                got.extract().map_err(|_| Fallback)?;
            let updated = schema_of(&updated)?.ok_or(Fallback)?;
            let n = schema.fields.len();
            if header_fields.len() != n_headers
                || header_fields.iter().chain(&sources).any(|&i| i >= n)
                || (moving && sources.len() != updated.fields.len())
                || (!moving && !Arc::ptr_eq(&updated, &schema))
            {
                return Err(Fallback);
            }
            Ok(Plan {
                updated,
                sources,
                header_fields,
            })
        })?;
        let rnwd = self.rnwd;
        let added: Vec<NHeader> = plan
            .header_fields
            .iter()
            .zip(&self.headers)
            .map(|(&i, h)| NHeader {
                key: h.clone(),
                schema: Some(schema.fields[i].schema.clone()),
                value: field_value(sv, i, rnwd).clone(),
            })
            .collect();
        if moving {
            for (j, &i) in plan.sources.iter().enumerate() {
                null_ok(&plan.updated.fields[j].schema, field_value(sv, i, rnwd))?;
            }
            let (s, v) = rec.side_mut(key);
            let Value::Struct(sv) = v else { unreachable!() };
            let mut values = Vec::with_capacity(plan.sources.len());
            for &i in &plan.sources {
                values.push(if rnwd && sv.values[i].is_null() {
                    field_value(sv, i, true).clone()
                } else {
                    std::mem::replace(&mut sv.values[i], Value::Null)
                });
            }
            sv.values = values;
            sv.schema = plan.updated.clone();
            *s = Some(plan.updated.clone());
        }
        rec.headers.get_or_insert_with(Vec::new).extend(added);
        Ok(Outcome::Keep)
    }
}
