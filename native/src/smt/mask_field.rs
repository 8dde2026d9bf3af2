//! MaskField$Key / MaskField$Value (`kconnect.transforms.mask_field`): listed fields replaced by
//! their type's empty value or the configured replacement. The masked values are the Python
//! code's: per input schema for struct fields, per kind of value for schemaless ones.

use crate::java::hash::MapKind;
use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::NRecord;
use crate::model::value::{Str, Value};
use crate::pyconv::from_py::value_of;
use crate::smt::common::{call, field_value, func, get, java_order, map_get, null_ok, map_put, string_keys, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::Arc;

enum Mask {
    Keep,
    /// the masked value (a fresh copy per record: lists and maps are mutable in Python)
    With(Value),
    /// masking this field fails (only for records where it is not null)
    Refused,
}

struct Plan {
    fields: Vec<Mask>,
}

/// The kinds of schemaless values, each masked one way.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Bool,
    Int,
    Float,
    Decimal,
    Str,
    Timestamp,
    Date,
    Time,
    List,
    Map,
}

fn kind_of(v: &Value) -> Option<Kind> {
    Some(match v {
        Value::Bool(_) => Kind::Bool,
        Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => Kind::Int,
        Value::F32(_) | Value::F64(_) => Kind::Float,
        Value::Decimal(_) => Kind::Decimal,
        Value::Str(_) => Kind::Str,
        Value::Timestamp(_) => Kind::Timestamp,
        Value::Date(_) => Kind::Date,
        Value::Time(_) => Kind::Time,
        Value::Array(_) => Kind::List,
        Value::Map(_) => Kind::Map,
        _ => return None,
    })
}

pub struct MaskField {
    side: Side,
    fields: Vec<Str>,
    rnwd: bool,
    plan_of: PyObj,
    mask_plain: PyObj,
    /// the Python sample of each kind (what `mask_plain` is asked about)
    samples: PyObj,
    plans: PlanCache<Plan>,
    plain: HashMap<(usize, Kind), Option<Value>>,
}

impl MaskField {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<MaskField> {
        let fields: Vec<String> = get(spec, "fields")?;
        Ok(MaskField {
            side: Side::of(spec)?,
            fields: fields.into_iter().map(Str::new).collect(),
            rnwd: get(spec, "replace_null_with_default")?,
            plan_of: func(spec, "plan")?,
            mask_plain: func(spec, "mask_plain")?,
            samples: func(spec, "samples")?,
            plans: PlanCache::default(),
            plain: HashMap::new(),
        })
    }

    fn plain_mask(&mut self, py: Python<'_>, field: usize, v: &Value) -> R<Value> {
        if v.is_null() {
            return Ok(Value::Null);
        }
        let kind = kind_of(v).ok_or(Fallback)?;
        let got = self.plain.entry((field, kind)).or_insert_with(|| {
            let sample_name = match kind {
                Kind::Bool => "bool",
                Kind::Int => "int",
                Kind::Float => "float",
                Kind::Decimal => "decimal",
                Kind::Str => "str",
                Kind::Timestamp => "datetime",
                Kind::Date => "date",
                Kind::Time => "time",
                Kind::List => "list",
                Kind::Map => "dict",
            };
            let sample = self.samples.bind(py).get_item(sample_name).ok()?;
            let masked = self
                .mask_plain
                .bind(py)
                .call1((self.fields[field].as_str(), sample))
                .ok()?;
            Some(value_of(&masked, None))
        });
        got.clone().ok_or(Fallback)
    }
}

impl Transform for MaskField {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let key = self.side.key;
        let (schema, value) = rec.side(key);
        let Some(schema) = schema.clone() else {
            let Value::Map(entries) = value else {
                return Err(Fallback);
            };
            if !string_keys(entries) {
                return Err(Fallback);
            }
            let mut masks = Vec::with_capacity(self.fields.len());
            for i in 0..self.fields.len() {
                let cur = map_get(entries, &self.fields[i]).unwrap_or(&Value::Null);
                masks.push(self.plain_mask(py, i, cur)?);
            }
            let Value::Map(entries) = std::mem::replace(rec.side_mut(key).1, Value::Null) else {
                unreachable!()
            };
            let n = entries.len();
            let mut out = entries;
            for (name, m) in self.fields.iter().zip(masks) {
                map_put(&mut out, name, m);
            }
            *rec.side_mut(key).1 = Value::Map(java_order(out, MapKind::HashCopyOf(n)));
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
            let mut fields = Vec::with_capacity(schema.fields.len());
            for (i, m) in got.try_iter().map_err(|_| Fallback)?.enumerate() {
                let m = m.map_err(|_| Fallback)?;
                fields.push(if m.is_none() {
                    Mask::Keep
                } else {
                    let (ok, v): (bool, Bound<'_, PyAny>) = m.extract().map_err(|_| Fallback)?;
                    if ok {
                        Mask::With(value_of(&v, Some(&schema.fields[i].schema)))
                    } else {
                        Mask::Refused
                    }
                });
            }
            if fields.len() != schema.fields.len() {
                return Err(Fallback);
            }
            Ok(Plan { fields })
        })?;
        let rnwd = self.rnwd;
        for (i, m) in plan.fields.iter().enumerate() {
            let x = field_value(sv, i, rnwd);
            if matches!(m, Mask::Refused) && !x.is_null() {
                return Err(Fallback);
            }
            null_ok(&schema.fields[i].schema, x)?;
        }
        let Value::Struct(sv) = rec.side_mut(key).1 else { unreachable!() };
        for (i, m) in plan.fields.iter().enumerate() {
            let null = field_value(sv, i, rnwd).is_null();
            match m {
                Mask::With(x) if !null => sv.values[i] = x.clone(),
                _ => {
                    if rnwd && sv.values[i].is_null() {
                        if let Some(d) = sv.schema.fields[i].schema.default_value() {
                            sv.values[i] = d.clone();
                        }
                    }
                }
            }
        }
        Ok(Outcome::Keep)
    }
}
