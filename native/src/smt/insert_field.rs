//! InsertField$Key / InsertField$Value (`kconnect.transforms.insert_field`): fields from the
//! record's topic, partition, offset (sink records), timestamp, or a static string.

use crate::java::hash::MapKind;
use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::{Meta, NRecord};
use crate::model::schema::SchemaRef;
use crate::model::value::{Str, Value};
use crate::smt::common::{call, field_value, func, get, java_order, map_put, null_ok, schema_of, string_keys, PlanCache, Side};
use crate::smt::{Outcome, Transform};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

#[derive(Clone, Copy)]
enum Source {
    Input(usize),
    Topic,
    Partition,
    Offset,
    Timestamp,
    Static,
}

struct Plan {
    updated: SchemaRef,
    sources: Vec<Source>,
    /// How many leading fields of the updated schema are the input's own, in its order (all
    /// of them when the schema is Java's: the input's fields, then the inserted ones): those
    /// values stay where they are and the inserted ones are appended.
    kept: usize,
}

pub struct InsertField {
    cfg: Cfg,
    plans: PlanCache<Plan>,
}

struct Cfg {
    side: Side,
    topic: Option<Str>,
    partition: Option<Str>,
    offset: Option<Str>,
    timestamp: Option<Str>,
    static_field: Option<Str>,
    static_value: Option<Str>,
    rnwd: bool,
    updated_schema: PyObj,
}

impl InsertField {
    pub fn new(spec: &Bound<'_, PyDict>) -> PyResult<InsertField> {
        let s = |k: &str| -> PyResult<Option<Str>> { Ok(get::<Option<String>>(spec, k)?.map(Str::new)) };
        Ok(InsertField {
            cfg: Cfg {
            side: Side::of(spec)?,
            topic: s("topic_field")?,
            partition: s("partition_field")?,
            offset: s("offset_field")?,
            timestamp: s("timestamp_field")?,
            static_field: s("static_field")?,
            static_value: s("static_value")?,
            rnwd: get(spec, "replace_null_with_default")?,
            updated_schema: func(spec, "updated_schema")?,
            },
            plans: PlanCache::default(),
        })
    }
}

impl Cfg {
    /// The inserted field called `name`, if any (the last of the settings naming it wins, as
    /// the Python code assigns them in this order).
    fn inserted(&self, name: &str) -> Option<Source> {
        let mut found = None;
        for (f, s) in [
            (&self.topic, Source::Topic),
            (&self.partition, Source::Partition),
            (&self.offset, Source::Offset),
            (&self.timestamp, Source::Timestamp),
            (&self.static_field, Source::Static),
        ] {
            if f.as_deref() == Some(name) {
                found = Some(s);
            }
        }
        found
    }

    /// The value of an inserted field for `rec` (None: left unset).
    fn value_of(&self, rec: &NRecord, s: Source, schemaless: bool) -> R<Option<Value>> {
        Ok(match s {
            Source::Topic => Some(Value::Str(rec.topic.name.clone())),
            Source::Partition => rec.partition.map(Value::I32),
            Source::Offset => match &rec.meta {
                Meta::Sink(m) => Some(Value::I64(m.offset)),
                Meta::Source(_) => return Err(Fallback), // needs a sink record
            },
            Source::Timestamp => rec.timestamp.map(|ms| {
                if schemaless {
                    Value::I64(ms)
                } else {
                    Value::Timestamp(ms)
                }
            }),
            Source::Static => self.static_value.clone().map(Value::Str),
            Source::Input(_) => unreachable!(),
        })
    }
}

impl Transform for InsertField {
    fn apply(&mut self, py: Python<'_>, rec: &mut NRecord) -> R<Outcome> {
        let this = &self.cfg;
        let key = this.side.key;
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
            let mut inserts = Vec::new();
            for (f, s) in [
                (&this.topic, Source::Topic),
                (&this.partition, Source::Partition),
                (&this.offset, Source::Offset),
                (&this.timestamp, Source::Timestamp),
                (&this.static_field, Source::Static),
            ] {
                if let Some(name) = f {
                    if let Some(v) = this.value_of(rec, s, true)? {
                        inserts.push((name.clone(), v));
                    }
                }
            }
            let Value::Map(entries) = std::mem::replace(rec.side_mut(key).1, Value::Null) else {
                unreachable!()
            };
            let n = entries.len();
            let mut out = entries;
            for (name, v) in inserts {
                map_put(&mut out, &name, v);
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
        let plan = self.plans.get(&schema, || {
            let updated = schema_of(&call(py, &this.updated_schema, &schema)?)?.ok_or(Fallback)?;
            let sources = updated
                .fields
                .iter()
                .map(|fl| match this.inserted(&fl.name) {
                    Some(s) => Ok(s),
                    None => schema.field_index(&fl.name).map(Source::Input).ok_or(Fallback),
                })
                .collect::<R<Vec<_>>>()?;
            let kept = sources
                .iter()
                .enumerate()
                .take_while(|(j, s)| matches!(s, Source::Input(i) if i == j))
                .count();
            let kept = if kept == schema.fields.len() { kept } else { 0 };
            Ok(Plan { updated, sources, kept })
        })?;
        if plan.kept > 0 {
            return in_place(this, &plan, rec, key);
        }
        // the inserted values first: an offset of a source record falls back untouched
        let mut extra: Vec<Option<Value>> = Vec::with_capacity(plan.sources.len());
        for s in &plan.sources {
            extra.push(match s {
                Source::Input(_) => None,
                s => Some(this.value_of(rec, *s, false)?.unwrap_or(Value::Null)),
            });
        }
        let rnwd = this.rnwd;
        if let Value::Struct(sv) = rec.side(key).1 {
            for (j, src) in plan.sources.iter().enumerate() {
                if let Source::Input(i) = src {
                    null_ok(&plan.updated.fields[j].schema, field_value(sv, *i, rnwd))?;
                }
            }
        }
        let (s, v) = rec.side_mut(key);
        let Value::Struct(sv) = v else { unreachable!() };
        let mut values = Vec::with_capacity(plan.sources.len());
        for (src, x) in plan.sources.iter().zip(extra) {
            values.push(match (src, x) {
                (Source::Input(i), _) => {
                    if rnwd && sv.values[*i].is_null() {
                        field_value(sv, *i, true).clone()
                    } else {
                        std::mem::replace(&mut sv.values[*i], Value::Null)
                    }
                }
                (_, Some(x)) => x,
                (_, None) => Value::Null,
            });
        }
        sv.values = values;
        sv.schema = plan.updated.clone();
        *s = Some(plan.updated.clone());
        Ok(Outcome::Keep)
    }
}

/// [`InsertField::apply`] for a plan that keeps every input field in place (`plan.kept`):
/// the inserted values are appended to the struct's own vector, nothing is moved.
fn in_place(this: &Cfg, plan: &Plan, rec: &mut NRecord, key: bool) -> R<Outcome> {
    let kept = plan.kept;
    let mut inserted: Vec<Value> = Vec::with_capacity(plan.sources.len() - kept);
    for s in &plan.sources[kept..] {
        inserted.push(this.value_of(rec, *s, false)?.unwrap_or(Value::Null));
    }
    let rnwd = this.rnwd;
    let (s, v) = rec.side_mut(key);
    let Value::Struct(sv) = v else { unreachable!() };
    for j in 0..kept {
        null_ok(&plan.updated.fields[j].schema, field_value(sv, j, rnwd))?;
    }
    if rnwd {
        for j in 0..kept {
            if sv.values[j].is_null() {
                let d = field_value(sv, j, true).clone();
                sv.values[j] = d;
            }
        }
    }
    sv.values.truncate(kept);
    sv.values.extend(inserted);
    sv.schema = plan.updated.clone();
    *s = Some(plan.updated.clone());
    Ok(Outcome::Keep)
}
