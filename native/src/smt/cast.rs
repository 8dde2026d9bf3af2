//! Cast$Key / Cast$Value (`kconnect.transforms.cast`): fields, or the whole key/value, cast to
//! another primitive type with Java's conversions (narrowing wraps, doubles saturate, NaN is
//! 0, `Boolean.parseBoolean`, `Double.toString`...). Parsing text is native only for plain
//! decimal spellings; anything else goes to the Python stage.

use crate::java;
use crate::java::hash::MapKind;
use crate::json::read::{Fallback, R};
use crate::model::record::NRecord;
use crate::model::schema::{Logical, SchemaRef, Ty};
use crate::model::value::{Str, Value};
use crate::smt::common::{call, field_value, get, java_order, map_get, map_put, put_ok, schema_of, string_keys, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use crate::model::pyobj::PyObj;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Target {
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Bool,
    Str,
}

impl Target {
    fn parse(name: &str) -> PyResult<Target> {
        Ok(match name {
            "int8" => Target::I8,
            "int16" => Target::I16,
            "int32" => Target::I32,
            "int64" => Target::I64,
            "float32" => Target::F32,
            "float64" => Target::F64,
            "boolean" => Target::Bool,
            "string" => Target::Str,
            _ => return Err(pyo3::exceptions::PyValueError::new_err(format!("cast target {name}"))),
        })
    }
}

/// What a value is cast from: its schema's type, or (schemaless) its own class.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Int,
    F32,
    F64,
    Bool,
    Str,
    Bytes,
    Decimal,
    Date,
    Time,
    Timestamp,
}

fn source_of_schema(s: &SchemaRef) -> R<Source> {
    Ok(match s.logical {
        Logical::Decimal(_) => Source::Decimal,
        Logical::Date => Source::Date,
        Logical::Time => Source::Time,
        Logical::Timestamp => Source::Timestamp,
        Logical::None => match s.ty {
            Ty::Int8 | Ty::Int16 | Ty::Int32 | Ty::Int64 => Source::Int,
            Ty::Float32 => Source::F32,
            Ty::Float64 => Source::F64,
            Ty::Boolean => Source::Bool,
            Ty::String => Source::Str,
            Ty::Bytes => Source::Bytes,
            _ => return Err(Fallback), // ARRAY, MAP, STRUCT cannot be cast
        },
    })
}

fn source_of_value(v: &Value) -> R<Source> {
    Ok(match v {
        Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => Source::Int,
        Value::F32(_) => Source::F32,
        Value::F64(_) => Source::F64,
        Value::Bool(_) => Source::Bool,
        Value::Str(_) => Source::Str,
        Value::Bytes(_) => Source::Bytes,
        // a schemaless BigDecimal or java.util.Date has no schema type: the Python stage
        // raises Java's error
        _ => return Err(Fallback),
    })
}

/// `Number.longValue()` of a numeric value: truncation toward zero, wrapped to 64 bits;
/// doubles saturate and NaN is 0.
fn java_long(v: &Value) -> R<i64> {
    Ok(match v {
        Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => v.as_integer().unwrap(),
        Value::F32(f) => *f as f64 as i64,
        Value::F64(f) => *f as i64,
        Value::Decimal(d) => {
            let int_part: i128 = if d.scale <= 0 {
                let mut x = d.unscaled;
                for _ in 0..(-(d.scale as i64)).min(200) {
                    x = x.wrapping_mul(10);
                }
                x
            } else if d.scale > 38 {
                0
            } else {
                d.unscaled / 10i128.pow(d.scale as u32)
            };
            int_part as i64
        }
        _ => return Err(Fallback),
    })
}

/// A plain decimal number's text: `[+-]digits[.digits][(e|E)[+-]digits]`.
fn plain_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let d0 = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - d0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f0 = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - f0;
    }
    if digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let e0 = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == e0 {
            return false;
        }
    }
    i == b.len()
}

/// An integer's text: `[+-]digits`.
fn plain_integer(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let digits = b.strip_prefix(b"+").or_else(|| b.strip_prefix(b"-")).unwrap_or(b);
    if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.strip_prefix('+').unwrap_or(s).parse().ok()
}

fn narrow(n: i64, t: Target) -> Value {
    match t {
        Target::I8 => Value::I8(n as i8),
        Target::I16 => Value::I16(n as i16),
        Target::I32 => Value::I32(n as i32),
        _ => Value::I64(n),
    }
}

/// `Values.dateFormatFor(d).format(d)` in UTC: `HH:mm:ss.SSS'Z'` before 1970-01-02,
/// `yyyy-MM-dd` at midnight, else `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
pub fn iso_date_string(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rest = ms.rem_euclid(86_400_000);
    let (h, m, s, milli) = (rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000);
    if ms < 86_400_000 {
        return format!("{h:02}:{m:02}:{s:02}.{milli:03}Z");
    }
    let (y, mo, d) = crate::pyconv::civil::from_days(days);
    if rest == 0 {
        format!("{y:04}-{mo:02}-{d:02}")
    } else {
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
    }
}

/// Cast a non-null value from `source` to `target`, as the Python `_cast` does.
fn cast_value(v: &Value, source: Source, schemaless: bool, target: Target) -> R<Value> {
    if target == Target::Str {
        let mut buf = Vec::new();
        let text: Str = match (v, source) {
            (Value::Str(s), _) => s.clone(),
            (Value::Bool(b), _) => Str::new(if *b { "true" } else { "false" }),
            (Value::F32(f), Source::F32) => {
                java::push_float(&mut buf, *f);
                Str::new(std::str::from_utf8(&buf).unwrap())
            }
            (Value::F32(f), _) => {
                java::push_double(&mut buf, *f as f64);
                Str::new(std::str::from_utf8(&buf).unwrap())
            }
            (Value::F64(f), _) => {
                java::push_double(&mut buf, *f);
                Str::new(std::str::from_utf8(&buf).unwrap())
            }
            (Value::Bytes(b), _) => {
                java::base64::encode_into(&mut buf, b);
                Str::new(std::str::from_utf8(&buf).unwrap())
            }
            (Value::Decimal(d), _) => {
                java::push_big_decimal(&mut buf, d);
                Str::new(std::str::from_utf8(&buf).unwrap())
            }
            (Value::Date(days), _) => Str::new(iso_date_string(*days as i64 * 86_400_000)),
            (Value::Time(ms), _) => Str::new(iso_date_string(*ms as i64)),
            (Value::Timestamp(ms), _) => Str::new(iso_date_string(*ms)),
            _ => match v.as_integer() {
                Some(n) => Str::new(n.to_string()),
                None => return Err(Fallback),
            },
        };
        return Ok(Value::Str(text));
    }
    // numbers and booleans: logical values go through their INT32/INT64 encoding
    let v = match v {
        Value::Date(days) if !schemaless => Value::I32(*days),
        Value::Time(ms) if !schemaless => Value::I32(*ms),
        Value::Timestamp(ms) => Value::I64(*ms),
        Value::Bytes(_) | Value::Date(_) | Value::Time(_) => return Err(Fallback),
        other => other.clone(),
    };
    Ok(match target {
        Target::I8 | Target::I16 | Target::I32 | Target::I64 => match &v {
            Value::Bool(b) => narrow(*b as i64, target),
            Value::Str(s) => {
                let n = plain_integer(s).ok_or(Fallback)?;
                let fits = match target {
                    Target::I8 => i8::try_from(n).is_ok(),
                    Target::I16 => i16::try_from(n).is_ok(),
                    Target::I32 => i32::try_from(n).is_ok(),
                    _ => true,
                };
                if !fits {
                    return Err(Fallback);
                }
                narrow(n, target)
            }
            // Double.byteValue/shortValue/intValue: (byte) (int) d, the cast to int saturating
            Value::F32(f) if target != Target::I64 => narrow(*f as i32 as i64, target),
            Value::F64(f) if target != Target::I64 => narrow(*f as i32 as i64, target),
            _ => narrow(java_long(&v)?, target),
        },
        Target::F32 | Target::F64 => {
            let f = match &v {
                Value::Bool(b) => {
                    if *b {
                        1.0
                    } else {
                        0.0
                    }
                }
                Value::F32(f) => *f as f64,
                Value::F64(f) => *f,
                Value::Str(s) => {
                    if !plain_number(s) {
                        return Err(Fallback);
                    }
                    s.parse::<f64>().map_err(|_| Fallback)?
                }
                Value::Decimal(d) => {
                    let mut t = Vec::new();
                    java::push_big_decimal(&mut t, d);
                    std::str::from_utf8(&t).unwrap().parse::<f64>().map_err(|_| Fallback)?
                }
                _ => v.as_integer().ok_or(Fallback)? as f64,
            };
            if target == Target::F32 {
                Value::F32(f as f32)
            } else {
                Value::F64(f)
            }
        }
        Target::Bool => match &v {
            Value::Bool(b) => Value::Bool(*b),
            Value::Str(s) => Value::Bool(s.eq_ignore_ascii_case("true")),
            _ => Value::Bool(java_long(&v)? != 0),
        },
        Target::Str => unreachable!(),
    })
}

/// Per input schema: the updated schema, and per field its cast target (if any), its source
/// and the output field's schema.
struct StructPlan {
    updated: SchemaRef,
    fields: Vec<(Option<Target>, Option<Source>)>,
}

struct WholePlan {
    updated: SchemaRef,
    source: Source,
}

pub struct Cast {
    side: Side,
    whole: Option<Target>,
    casts: Vec<(Str, Target)>,
    rnwd: bool,
    updated_schema: PyObj,
    structs: PlanCache<StructPlan>,
    wholes: PlanCache<WholePlan>,
}

impl Cast {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<Cast> {
        let whole: Option<String> = get(spec, "whole")?;
        let casts: Vec<(String, String)> = get(spec, "casts")?;
        Ok(Cast {
            side: Side::of(spec)?,
            whole: whole.map(|t| Target::parse(&t)).transpose()?,
            casts: casts
                .into_iter()
                .map(|(f, t)| Ok((Str::new(f), Target::parse(&t)?)))
                .collect::<PyResult<_>>()?,
            rnwd: get(spec, "replace_null_with_default")?,
            updated_schema: crate::smt::common::func(spec, "updated_schema")?,
            structs: PlanCache::default(),
            wholes: PlanCache::default(),
        })
    }

    fn schemaless(&self, v: &Value) -> R<Value> {
        if let Some(t) = self.whole {
            return cast_value(v, source_of_value(v)?, true, t);
        }
        let Value::Map(entries) = v else {
            return Err(Fallback);
        };
        if !string_keys(entries) {
            return Err(Fallback);
        }
        let mut out: Vec<(Value, Value)> = entries.clone();
        for (name, t) in &self.casts {
            let cast = match map_get(entries, name) {
                None | Some(Value::Null) => Value::Null,
                Some(x) => cast_value(x, source_of_value(x)?, true, *t)?,
            };
            map_put(&mut out, name, cast);
        }
        Ok(Value::Map(java_order(out, MapKind::HashCopyOf(entries.len()))))
    }
}

impl Transform for Cast {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let key = self.side.key;
        let (schema, value) = rec.side(key);
        if value.is_null() {
            return Ok(Outcome::Keep);
        }
        let Some(schema) = schema.clone() else {
            let out = self.schemaless(value)?;
            *rec.side_mut(key).1 = out;
            return Ok(Outcome::Keep);
        };
        let f = &self.updated_schema;
        if let Some(t) = self.whole {
            let plan = self.wholes.get(&schema, || {
                Ok(WholePlan {
                    updated: schema_of(&call(py, f, &schema)?)?.ok_or(Fallback)?,
                    source: source_of_schema(&schema)?,
                })
            })?;
            let out = cast_value(value, plan.source, false, t)?;
            let (s, v) = rec.side_mut(key);
            *s = Some(plan.updated.clone());
            *v = out;
            return Ok(Outcome::Keep);
        }
        let Value::Struct(sv) = value else {
            return Err(Fallback);
        };
        if !Arc::ptr_eq(&sv.schema, &schema) {
            return Err(Fallback);
        }
        let casts = &self.casts;
        let plan = self.structs.get(&schema, || {
            let updated = schema_of(&call(py, f, &schema)?)?.ok_or(Fallback)?;
            if updated.fields.len() != schema.fields.len() {
                return Err(Fallback);
            }
            let mut fields = Vec::with_capacity(schema.fields.len());
            for fl in &schema.fields {
                match casts.iter().find(|(n, _)| *n == fl.name) {
                    Some((_, t)) => fields.push((Some(*t), source_of_schema(&fl.schema).ok())),
                    None => fields.push((None, None)),
                }
            }
            Ok(StructPlan { updated, fields })
        })?;
        // everything that can fail, before anything changes
        let mut cast: Vec<(usize, Value)> = Vec::new();
        for (i, (target, source)) in plan.fields.iter().enumerate() {
            let v = field_value(sv, i, self.rnwd);
            let out_schema = &plan.updated.fields[i].schema;
            match target {
                Some(t) => {
                    let x = if v.is_null() {
                        Value::Null
                    } else {
                        cast_value(v, source.ok_or(Fallback)?, false, *t)?
                    };
                    put_ok(out_schema, &x)?;
                    cast.push((i, x));
                }
                None => put_ok(out_schema, v)?,
            }
        }
        let rnwd = self.rnwd;
        let Value::Struct(sv) = rec.side_mut(key).1 else { unreachable!() };
        if rnwd {
            for i in 0..sv.values.len() {
                if sv.values[i].is_null() {
                    if let Some(d) = sv.schema.fields[i].schema.default_value() {
                        sv.values[i] = d.clone();
                    }
                }
            }
        }
        for (i, x) in cast {
            sv.values[i] = x;
        }
        sv.schema = plan.updated.clone();
        *rec.side_mut(key).0 = Some(plan.updated.clone());
        Ok(Outcome::Keep)
    }
}
