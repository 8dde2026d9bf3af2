//! ReplaceField$Key / ReplaceField$Value (`kconnect.transforms.replace_field`): fields kept,
//! dropped and renamed. With a schema the Python code names, per input schema, the updated
//! schema and which input field each output field takes; schemaless the map is rebuilt as
//! Java's `new HashMap<>(value.size())`.

use crate::java::hash::MapKind;
use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::NRecord;
use crate::model::schema::SchemaRef;
use crate::model::value::{Str, Value};
use crate::smt::common::{call, field_value, func, get, java_order, null_ok, schema_of, string_keys, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

struct Plan {
    updated: SchemaRef,
    /// per output field, the input field it takes
    sources: Vec<usize>,
}

pub struct ReplaceField {
    side: Side,
    exclude: Vec<Str>,
    include: Vec<Str>,
    renames: Vec<(Str, Str)>,
    rnwd: bool,
    plan_of: PyObj,
    plans: PlanCache<Plan>,
}

impl ReplaceField {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<ReplaceField> {
        let strs = |v: Vec<String>| v.into_iter().map(Str::new).collect::<Vec<_>>();
        let renames: Vec<(String, String)> = get(spec, "renames")?;
        Ok(ReplaceField {
            side: Side::of(spec)?,
            exclude: strs(get(spec, "exclude")?),
            include: strs(get(spec, "include")?),
            renames: renames.into_iter().map(|(a, b)| (Str::new(a), Str::new(b))).collect(),
            rnwd: get(spec, "replace_null_with_default")?,
            plan_of: func(spec, "plan")?,
            plans: PlanCache::default(),
        })
    }

    fn keep(&self, name: &str) -> bool {
        !self.exclude.iter().any(|e| e == name)
            && (self.include.is_empty() || self.include.iter().any(|e| e == name))
    }

    fn renamed<'a>(&'a self, name: &'a Str) -> &'a Str {
        self.renames.iter().find(|(old, _)| old == name).map(|(_, new)| new).unwrap_or(name)
    }
}

impl Transform for ReplaceField {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let key = self.side.key;
        let (schema, value) = rec.side(key);
        if value.is_null() {
            return Ok(Outcome::Keep);
        }
        let Some(schema) = schema.clone() else {
            let Value::Map(entries) = value else {
                return Err(Fallback);
            };
            if !string_keys(entries) {
                return Err(Fallback);
            }
            let n = entries.len();
            let Value::Map(entries) = std::mem::replace(rec.side_mut(key).1, Value::Null) else {
                unreachable!()
            };
            let mut out: Vec<(Value, Value)> = Vec::with_capacity(n);
            for (k, v) in entries {
                let Value::Str(name) = &k else { unreachable!() };
                if !self.keep(name) {
                    continue;
                }
                let new = self.renamed(name).clone();
                match out.iter_mut().find(|(e, _)| matches!(e, Value::Str(s) if *s == new)) {
                    Some(slot) => slot.1 = v,
                    None => out.push((Value::Str(new), v)),
                }
            }
            *rec.side_mut(key).1 = Value::Map(java_order(out, MapKind::HashWithCapacity(n)));
            return Ok(Outcome::Keep);
        };
        let Value::Struct(sv) = value else {
            return Err(Fallback);
        };
        if !Arc::ptr_eq(&sv.schema, &schema) {
            return Err(Fallback);
        }
        let f = &self.plan_of;
        let plan = self.plans.get(&schema, || {
            let got = call(py, f, &schema)?;
            let (updated, olds): (Bound<'_, PyAny>, Vec<String>) = got.extract().map_err(|_| Fallback)?;
            let updated = schema_of(&updated)?.ok_or(Fallback)?;
            let sources = olds
                .iter()
                .map(|o| schema.field_index(o).ok_or(Fallback))
                .collect::<R<Vec<_>>>()?;
            if sources.len() != updated.fields.len() {
                return Err(Fallback);
            }
            Ok(Plan { updated, sources })
        })?;
        let rnwd = self.rnwd;
        for (j, &i) in plan.sources.iter().enumerate() {
            null_ok(&plan.updated.fields[j].schema, field_value(sv, i, rnwd))?;
        }
        let (s, v) = rec.side_mut(key);
        let Value::Struct(sv) = v else { unreachable!() };
        let mut values = Vec::with_capacity(plan.sources.len());
        for &i in &plan.sources {
            let x = if rnwd && sv.values[i].is_null() {
                field_value(sv, i, true).clone()
            } else {
                std::mem::replace(&mut sv.values[i], Value::Null)
            };
            values.push(x);
        }
        sv.values = values;
        sv.schema = plan.updated.clone();
        *s = Some(plan.updated.clone());
        Ok(Outcome::Keep)
    }
}
