//! ExtractField$Key / ExtractField$Value (`kconnect.transforms.extract_field`): the key/value
//! replaced by one of its fields, top-level or (with `field.syntax.version=V2`) nested. With a
//! schema the Python code names, per input schema, the field's schema and its index at each
//! step of the path; schemaless the map is walked by the path's step names. The extracted
//! value is taken out of the record, not copied, unless it comes from a field's default.

use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::NRecord;
use crate::model::schema::SchemaRef;
use crate::model::value::{Str, StructVal, Value};
use crate::smt::common::{call, func, get, map_get, schema_of, string_keys, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

struct Plan {
    /// the schema of the field at the path (the record's new schema)
    field_schema: SchemaRef,
    /// the field's index at each step: the parents', then its own
    path: Vec<usize>,
}

/// Where the extracted value is.
enum Found {
    /// nowhere: the result is null
    Null,
    /// in the record, at the path (taken out)
    Here,
    /// a copy (of a default, or of something under a default)
    Copy(Value),
}

pub struct ExtractField {
    side: Side,
    steps: Vec<Str>,
    rnwd: bool,
    field_of: PyObj,
    plans: PlanCache<Plan>,
}

impl ExtractField {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<ExtractField> {
        let steps: Vec<String> = get(spec, "steps")?;
        if steps.is_empty() {
            return Err(pyo3::exceptions::PyValueError::new_err("extract_field: empty path"));
        }
        Ok(ExtractField {
            side: Side::of(spec)?,
            steps: steps.into_iter().map(Str::new).collect(),
            rnwd: get(spec, "replace_null_with_default")?,
            field_of: func(spec, "field")?,
            plans: PlanCache::default(),
        })
    }

    /// `SingleFieldPath.value_from_struct`: parents are read with their defaults (as Java's
    /// `Struct.get`), the last field with its default only with `rnwd`. Every nested struct
    /// must be of its field's very schema (the indexes are the Python code's, per schema).
    fn find_in_struct(&self, top: &StructVal, path: &[usize]) -> R<Found> {
        let (last, parents) = path.split_last().ok_or(Fallback)?;
        let mut cur = top;
        let mut in_default = false;
        for &i in parents {
            let field_schema = &cur.schema.fields.get(i).ok_or(Fallback)?.schema;
            let mut v = cur.values.get(i).ok_or(Fallback)?;
            if v.is_null() {
                match field_schema.default_value() {
                    Some(d) => {
                        v = d;
                        in_default = true;
                    }
                    None => return Ok(Found::Null),
                }
            }
            match v {
                Value::Struct(s) if Arc::ptr_eq(&s.schema, field_schema) => cur = s,
                _ => return Err(Fallback), // not a struct: the Python stage raises
            }
        }
        let field = cur.schema.fields.get(*last).ok_or(Fallback)?;
        let v = cur.values.get(*last).ok_or(Fallback)?;
        Ok(if v.is_null() {
            match field.schema.default_value() {
                Some(d) if self.rnwd => Found::Copy(d.clone()),
                _ => Found::Null,
            }
        } else if in_default {
            Found::Copy(v.clone())
        } else {
            Found::Here
        })
    }

    /// `SingleFieldPath.value_from_map`: a null or missing parent gives null; a parent that is
    /// not a map (or a map with keys other than strings) is the Python stage's.
    fn find_in_map(&self, entries: &[(Value, Value)]) -> R<Found> {
        let (last, parents) = self.steps.split_last().ok_or(Fallback)?;
        let mut cur = entries;
        for step in parents {
            if !string_keys(cur) {
                return Err(Fallback);
            }
            match map_get(cur, step) {
                None | Some(Value::Null) => return Ok(Found::Null),
                Some(Value::Map(inner)) => cur = inner,
                Some(_) => return Err(Fallback),
            }
        }
        if !string_keys(cur) {
            return Err(Fallback);
        }
        Ok(match map_get(cur, last) {
            None | Some(Value::Null) => Found::Null,
            Some(_) => Found::Here,
        })
    }
}

/// Take the value at `path` (found there by `find_in_struct`, so every step is a struct).
fn take_in_struct(top: &mut StructVal, path: &[usize]) -> Value {
    let (last, parents) = path.split_last().unwrap();
    let mut cur = top;
    for &i in parents {
        let Value::Struct(s) = &mut cur.values[i] else { unreachable!() };
        cur = s;
    }
    std::mem::replace(&mut cur.values[*last], Value::Null)
}

/// Take the value at the path's steps (found there by `find_in_map`).
fn take_in_map(entries: &mut [(Value, Value)], steps: &[Str]) -> Value {
    let (last, parents) = steps.split_last().unwrap();
    let slot = |entries: &mut [(Value, Value)], name: &str| -> usize {
        entries
            .iter()
            .position(|(k, _)| matches!(k, Value::Str(s) if s == name))
            .unwrap()
    };
    let mut cur = entries;
    for step in parents {
        let i = slot(cur, step);
        let Value::Map(inner) = &mut cur[i].1 else { unreachable!() };
        cur = inner;
    }
    let i = slot(cur, last);
    std::mem::replace(&mut cur[i].1, Value::Null)
}

impl Transform for ExtractField {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let key = self.side.key;
        let (schema, value) = rec.side(key);
        let Some(schema) = schema.clone() else {
            let found = match value {
                Value::Null => Found::Null,
                Value::Map(entries) => self.find_in_map(entries)?,
                _ => return Err(Fallback),
            };
            let v = rec.side_mut(key).1;
            *v = match found {
                Found::Null => Value::Null,
                Found::Copy(x) => x,
                Found::Here => {
                    let Value::Map(entries) = v else { unreachable!() };
                    take_in_map(entries, &self.steps)
                }
            };
            return Ok(Outcome::Keep);
        };
        let f = &self.field_of;
        let plan = self.plans.get(&schema, || {
            let got = call(py, f, &schema)?;
            let (field_schema, path): (Bound<'_, PyAny>, Vec<usize>) = got.extract().map_err(|_| Fallback)?;
            let field_schema = schema_of(&field_schema)?.ok_or(Fallback)?;
            if path.is_empty() {
                return Err(Fallback);
            }
            Ok(Plan { field_schema, path })
        })?;
        let found = match value {
            Value::Null => Found::Null,
            Value::Struct(sv) if Arc::ptr_eq(&sv.schema, &schema) => self.find_in_struct(sv, &plan.path)?,
            _ => return Err(Fallback),
        };
        let (s, v) = rec.side_mut(key);
        *v = match found {
            Found::Null => Value::Null,
            Found::Copy(x) => x,
            Found::Here => {
                let Value::Struct(sv) = v else { unreachable!() };
                take_in_struct(sv, &plan.path)
            }
        };
        *s = Some(plan.field_schema.clone());
        Ok(Outcome::Keep)
    }
}
