//! Flatten$Key / Flatten$Value (`kconnect.transforms.flatten`): nested structs (or maps) into
//! one level, names joined with `delimiter`. With a schema the flattened schema is the Python
//! code's (once per input schema) and its fields are the leaves of the input in walk order; a
//! null nested struct takes its field's default, or leaves its fields null. Schemaless, the
//! result is Java's `LinkedHashMap` in walk order.

use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::NRecord;
use crate::model::schema::{NSchema, SchemaRef, Ty};
use crate::model::value::{Str, Value};
use crate::smt::common::{call, func, get, schema_of, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

struct Plan {
    updated: SchemaRef,
}

pub struct Flatten {
    side: Side,
    delimiter: String,
    updated_schema: PyObj,
    plans: PlanCache<Plan>,
}

/// The number of leaves of a struct schema (None: it holds a MAP, which Flatten refuses).
fn leaves(s: &NSchema) -> Option<usize> {
    let mut n = 0;
    for f in &s.fields {
        n += match f.schema.ty {
            Ty::Struct => leaves(&f.schema)?,
            Ty::Map => return None,
            _ => 1,
        };
    }
    Some(n)
}

/// Whether every nested struct value under `values` (of `s`) has its field's schema.
fn consistent(s: &NSchema, values: &[Value]) -> bool {
    s.fields.iter().zip(values).all(|(f, v)| {
        if f.schema.ty != Ty::Struct {
            return true;
        }
        let v = if v.is_null() {
            match f.schema.default_value() {
                Some(d) => d,
                None => return true,
            }
        } else {
            v
        };
        match v {
            Value::Null => true,
            Value::Struct(sv) => Arc::ptr_eq(&sv.schema, &f.schema) && consistent(&f.schema, &sv.values),
            _ => false,
        }
    })
}

/// Whether Kafka's `put` takes each leaf present under `values` (of `s`): a null leaf (after
/// its default) needs an optional output field; the leaves of a null struct are not put.
/// `at` walks the fields of `out`, the flattened schema.
fn leaves_ok(s: &NSchema, values: &[Value], out: &NSchema, at: &mut usize) -> bool {
    for (f, v) in s.fields.iter().zip(values) {
        let v = if v.is_null() { f.schema.default_value().unwrap_or(v) } else { v };
        if f.schema.ty == Ty::Struct {
            match v {
                Value::Struct(sv) => {
                    if !leaves_ok(&f.schema, &sv.values, out, at) {
                        return false;
                    }
                }
                _ => *at += leaves(&f.schema).unwrap_or(0),
            }
        } else {
            if v.is_null() && !out.fields[*at].schema.optional {
                return false;
            }
            *at += 1;
        }
    }
    true
}

/// Push the leaves of `values` (of `s`) in walk order, taking them over.
fn flatten_struct(s: &NSchema, values: Vec<Value>, out: &mut Vec<Value>) {
    for (f, v) in s.fields.iter().zip(values) {
        let v = if v.is_null() {
            f.schema.default_value().cloned().unwrap_or(Value::Null)
        } else {
            v
        };
        if f.schema.ty == Ty::Struct {
            match v {
                Value::Struct(sv) => flatten_struct(&f.schema, sv.values, out),
                _ => {
                    for _ in 0..leaves(&f.schema).unwrap_or(0) {
                        out.push(Value::Null);
                    }
                }
            }
        } else {
            out.push(v);
        }
    }
}

impl Flatten {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<Flatten> {
        Ok(Flatten {
            side: Side::of(spec)?,
            delimiter: get(spec, "delimiter")?,
            updated_schema: func(spec, "updated_schema")?,
            plans: PlanCache::default(),
        })
    }

    fn name(&self, prefix: &str, key: &str) -> Str {
        if prefix.is_empty() {
            Str::new(key)
        } else {
            Str::new(format!("{prefix}{}{key}", self.delimiter))
        }
    }

    /// Check a schemaless map can be flattened natively (string keys; leaves of plain kinds).
    fn check_map(entries: &[(Value, Value)]) -> bool {
        entries.iter().all(|(k, v)| {
            matches!(k, Value::Str(_))
                && match v {
                    Value::Map(inner) => Self::check_map(inner),
                    Value::Null
                    | Value::Bool(_)
                    | Value::I8(_)
                    | Value::I16(_)
                    | Value::I32(_)
                    | Value::I64(_)
                    | Value::F32(_)
                    | Value::F64(_)
                    | Value::Str(_)
                    | Value::Bytes(_)
                    | Value::Array(_) => true,
                    _ => false,
                }
        })
    }

    fn flatten_map(&self, entries: Vec<(Value, Value)>, prefix: &str, out: &mut Vec<(Value, Value)>) {
        for (k, v) in entries {
            let Value::Str(k) = k else { unreachable!() };
            let name = self.name(prefix, &k);
            match v {
                Value::Map(inner) => self.flatten_map(inner, &name, out),
                v => {
                    // a LinkedHashMap: a repeated name keeps its first place, takes the value
                    match out.iter_mut().find(|(e, _)| matches!(e, Value::Str(s) if *s == name)) {
                        Some(slot) => slot.1 = v,
                        None => out.push((Value::Str(name), v)),
                    }
                }
            }
        }
    }
}

impl Transform for Flatten {
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
            if !Self::check_map(entries) {
                return Err(Fallback);
            }
            let Value::Map(entries) = std::mem::replace(rec.side_mut(key).1, Value::Null) else {
                unreachable!()
            };
            let mut out = Vec::with_capacity(entries.len());
            self.flatten_map(entries, "", &mut out);
            *rec.side_mut(key).1 = Value::Map(out);
            return Ok(Outcome::Keep);
        };
        let Value::Struct(sv) = value else {
            return Err(Fallback);
        };
        if !Arc::ptr_eq(&sv.schema, &schema) || !consistent(&schema, &sv.values) {
            return Err(Fallback);
        }
        let f = &self.updated_schema;
        let plan = self.plans.get(&schema, || {
            let updated = schema_of(&call(py, f, &schema)?)?.ok_or(Fallback)?;
            if leaves(&schema) != Some(updated.fields.len()) {
                return Err(Fallback);
            }
            Ok(Plan { updated })
        })?;
        if !leaves_ok(&schema, &sv.values, &plan.updated, &mut 0) {
            return Err(Fallback); // the Python stage raises put's DataException
        }
        let (s, v) = rec.side_mut(key);
        let Value::Struct(sv) = v else { unreachable!() };
        let values = std::mem::take(&mut sv.values);
        let mut out = Vec::with_capacity(plan.updated.fields.len());
        flatten_struct(&schema, values, &mut out);
        sv.values = out;
        sv.schema = plan.updated.clone();
        *s = Some(plan.updated.clone());
        Ok(Outcome::Keep)
    }
}
