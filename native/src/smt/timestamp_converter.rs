//! TimestampConverter$Key / TimestampConverter$Value (`kconnect.transforms.
//! timestamp_converter`): between `string` (a SimpleDateFormat pattern, UTC), `unix` (a count
//! of `unix.precision` units) and the Date, Time and Timestamp logical types, through epoch
//! milliseconds. Text is formatted natively from the pattern as the Python code's
//! `JavaDateFormat` reads it, and parsed by that Python code.

use crate::java::date_format::DateFormat;
use crate::java::hash::MapKind;
use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::NRecord;
use crate::model::schema::{Logical, NSchema, SchemaRef, Ty};
use crate::model::value::{Str, Value};
use crate::pyconv::civil;
use crate::smt::common::{call, field_value, func, get, item, java_order, map_get, map_put, put_ok, schema_of, string_keys, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

const DAY_MS: i64 = 86_400_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Str,
    Unix,
    Date,
    Time,
    Timestamp,
}

impl Form {
    fn parse(name: &str) -> PyResult<Form> {
        Ok(match name {
            "string" => Form::Str,
            "unix" => Form::Unix,
            "Date" => Form::Date,
            "Time" => Form::Time,
            "Timestamp" => Form::Timestamp,
            _ => return Err(pyo3::exceptions::PyValueError::new_err(format!("timestamp form {name}"))),
        })
    }

    fn of_schema(s: &NSchema) -> R<Form> {
        Ok(match s.logical {
            Logical::Timestamp => Form::Timestamp,
            Logical::Date => Form::Date,
            Logical::Time => Form::Time,
            _ => match s.ty {
                Ty::String => Form::Str,
                Ty::Int64 => Form::Unix,
                _ => return Err(Fallback),
            },
        })
    }

    fn of_value(v: &Value) -> R<Form> {
        Ok(match v {
            Value::Timestamp(_) => Form::Timestamp,
            Value::Date(_) => Form::Date,
            Value::Time(_) => Form::Time,
            Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => Form::Unix,
            Value::Str(_) => Form::Str,
            _ => return Err(Fallback),
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Precision {
    Seconds,
    Millis,
    Micros,
    Nanos,
}

struct Plan {
    updated: SchemaRef,
    field: usize,
    form: Form,
}

pub struct TimestampConverter {
    side: Side,
    field: String,
    target: Form,
    precision: Precision,
    rnwd: bool,
    format: PyObj,
    /// the pattern, formatted natively (None: no pattern)
    native_format: Option<DateFormat>,
    parse: PyObj,
    updated_schema: PyObj,
    target_required: SchemaRef,
    target_optional: SchemaRef,
    plans: PlanCache<Plan>,
}

impl TimestampConverter {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<TimestampConverter> {
        let precision: String = get(spec, "precision")?;
        let (req, opt): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item(spec, "target_schemas")?.extract()?;
        Ok(TimestampConverter {
            side: Side::of(spec)?,
            field: get(spec, "field")?,
            target: Form::parse(&get::<String>(spec, "target")?)?,
            precision: match precision.as_str() {
                "seconds" => Precision::Seconds,
                "microseconds" => Precision::Micros,
                "nanoseconds" => Precision::Nanos,
                _ => Precision::Millis,
            },
            rnwd: get(spec, "replace_null_with_default")?,
            format: func(spec, "format")?,
            native_format: {
                let toks = item(spec, "format_tokens")?;
                if toks.is_none() {
                    None
                } else {
                    Some(DateFormat::from_tokens(&toks)?)
                }
            },
            parse: func(spec, "parse")?,
            updated_schema: func(spec, "updated_schema")?,
            target_required: NSchema::of(&req)?,
            target_optional: NSchema::of(&opt)?,
            plans: PlanCache::default(),
        })
    }

    fn ms_of(&self, py: Python<'_>, v: &Value, form: Form) -> R<i64> {
        Ok(match (form, v) {
            (Form::Str, Value::Str(s)) => {
                let got = self.parse.bind(py).call1((s.as_str(),)).map_err(|_| Fallback)?;
                if got.is_none() {
                    return Err(Fallback);
                }
                got.extract().map_err(|_| Fallback)?
            }
            (Form::Unix, _) => {
                let n = v.as_integer().ok_or(Fallback)?;
                match self.precision {
                    Precision::Seconds => n.checked_mul(1000).ok_or(Fallback)?,
                    Precision::Millis => n,
                    // (the Python code divides negative counts as floats: beyond 2^53 it rounds)
                    Precision::Micros if n >= 0 || n > -(1 << 53) => n / 1000,
                    Precision::Nanos if n >= 0 || n > -(1 << 53) => n / 1_000_000,
                    _ => return Err(Fallback),
                }
            }
            (Form::Timestamp, Value::Timestamp(ms)) => *ms,
            (Form::Date, Value::Date(days)) => *days as i64 * DAY_MS,
            (Form::Time, Value::Time(ms)) => *ms as i64,
            _ => return Err(Fallback),
        })
    }

    fn ms_to_target(&self, py: Python<'_>, ms: i64) -> R<Value> {
        Ok(match self.target {
            Form::Str => match &self.native_format {
                Some(f) => Value::Str(Str::new(f.format(ms).ok_or(Fallback)?)),
                None => {
                    let got = self.format.bind(py).call1((ms,)).map_err(|_| Fallback)?;
                    Value::Str(Str::new(got.extract::<&str>().map_err(|_| Fallback)?))
                }
            },
            Form::Unix => Value::I64(match self.precision {
                Precision::Seconds if ms >= 0 || ms > -(1 << 53) => ms / 1000,
                Precision::Seconds => return Err(Fallback),
                Precision::Millis => ms,
                Precision::Micros => ms.checked_mul(1000).ok_or(Fallback)?,
                Precision::Nanos => ms.checked_mul(1_000_000).ok_or(Fallback)?,
            }),
            Form::Date => {
                let days = ms.div_euclid(DAY_MS);
                if !(civil::MIN_DAYS..=civil::MAX_DAYS).contains(&days) {
                    return Err(Fallback);
                }
                Value::Date(days as i32)
            }
            Form::Time => Value::Time(ms.rem_euclid(DAY_MS) as i32),
            Form::Timestamp => {
                if !(civil::MIN_DAYS..=civil::MAX_DAYS).contains(&ms.div_euclid(DAY_MS)) {
                    return Err(Fallback);
                }
                Value::Timestamp(ms)
            }
        })
    }

    fn convert(&self, py: Python<'_>, v: &Value, form: Option<Form>) -> R<Value> {
        if v.is_null() {
            return Ok(Value::Null);
        }
        let form = match form {
            Some(f) => f,
            None => Form::of_value(v)?,
        };
        self.ms_to_target(py, self.ms_of(py, v, form)?)
    }
}

impl Transform for TimestampConverter {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let key = self.side.key;
        let (schema, value) = rec.side(key);
        let Some(schema) = schema.clone() else {
            if value.is_null() || self.field.is_empty() {
                let out = self.convert(py, value, None)?;
                *rec.side_mut(key).1 = out;
                return Ok(Outcome::Keep);
            }
            let Value::Map(entries) = value else {
                return Err(Fallback);
            };
            if !string_keys(entries) {
                return Err(Fallback);
            }
            let cur = map_get(entries, &self.field).unwrap_or(&Value::Null);
            let out = self.convert(py, cur, None)?;
            let Value::Map(entries) = std::mem::replace(rec.side_mut(key).1, Value::Null) else {
                unreachable!()
            };
            let n = entries.len();
            let mut entries = entries;
            map_put(&mut entries, &self.field, out);
            *rec.side_mut(key).1 = Value::Map(java_order(entries, MapKind::HashCopyOf(n)));
            return Ok(Outcome::Keep);
        };
        if self.field.is_empty() {
            let out = self.convert(py, value, Some(Form::of_schema(&schema)?))?;
            let target = if schema.optional {
                self.target_optional.clone()
            } else {
                self.target_required.clone()
            };
            let (s, v) = rec.side_mut(key);
            *s = Some(target);
            *v = out;
            return Ok(Outcome::Keep);
        }
        let f = &self.updated_schema;
        let field = &self.field;
        let plan = self.plans.get(&schema, || {
            let updated = schema_of(&call(py, f, &schema)?)?.ok_or(Fallback)?;
            let i = schema.field_index(field).ok_or(Fallback)?;
            if updated.fields.len() != schema.fields.len() {
                return Err(Fallback);
            }
            Ok(Plan {
                updated,
                field: i,
                form: Form::of_schema(&schema.fields[i].schema)?,
            })
        })?;
        let converted = match value {
            Value::Null => None,
            Value::Struct(sv) if Arc::ptr_eq(&sv.schema, &schema) => {
                let x = self.convert(py, field_value(sv, plan.field, self.rnwd), Some(plan.form))?;
                for (i, fl) in plan.updated.fields.iter().enumerate() {
                    if i == plan.field {
                        put_ok(&fl.schema, &x)?;
                    } else {
                        put_ok(&fl.schema, field_value(sv, i, self.rnwd))?;
                    }
                }
                Some(x)
            }
            _ => return Err(Fallback),
        };
        let rnwd = self.rnwd;
        let (s, v) = rec.side_mut(key);
        if let (Some(x), Value::Struct(sv)) = (converted, &mut *v) {
            if rnwd {
                for i in 0..sv.values.len() {
                    if sv.values[i].is_null() {
                        if let Some(d) = sv.schema.fields[i].schema.default_value() {
                            sv.values[i] = d.clone();
                        }
                    }
                }
            }
            sv.values[plan.field] = x;
            sv.schema = plan.updated.clone();
        }
        *s = Some(plan.updated.clone());
        Ok(Outcome::Keep)
    }
}
