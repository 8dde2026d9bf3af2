//! What the native transformations share: reading their specs, per-schema plan caches, field
//! access with defaults, and the iteration order of the maps the schemaless paths build.

use crate::java::hash::{order_entries, MapKind};
use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::schema::{Logical, NSchema, SchemaRef, Ty};
use crate::model::value::{Str, StructVal, Value};
use pyo3::exceptions::PyValueError;
use pyo3::conversion::FromPyObjectOwned;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::Arc;

/// A required item of a step's spec.
pub fn item<'py>(spec: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    spec.get_item(key)?
        .ok_or_else(|| PyValueError::new_err(format!("native step spec lacks '{key}'")))
}

pub fn get<'py, T: FromPyObjectOwned<'py>>(spec: &Bound<'py, PyDict>, key: &str) -> PyResult<T> {
    item(spec, key)?.extract().map_err(Into::into)
}

pub fn func(spec: &Bound<'_, PyDict>, key: &str) -> PyResult<PyObj> {
    Ok(PyObj::of(&item(spec, key)?))
}

/// Call a per-schema Python helper with a schema; what it returns, or Fallback if it raised
/// (the Python stage then raises it for the record).
pub fn call<'py>(py: Python<'py>, f: &PyObj, schema: &SchemaRef) -> R<Bound<'py, PyAny>> {
    f.bind(py).call1((schema.py.bind(py),)).map_err(|_| Fallback)
}

/// The native schema of a Python object that is a schema or None.
pub fn schema_of(obj: &Bound<'_, PyAny>) -> R<Option<SchemaRef>> {
    if obj.is_none() {
        Ok(None)
    } else {
        NSchema::of(obj).map(Some).map_err(|_| Fallback)
    }
}

/// Plans of one step, one per input schema (by schema object), made on first use.
pub struct PlanCache<P> {
    last: Option<(SchemaRef, Arc<P>)>,
    all: HashMap<usize, (SchemaRef, Arc<P>)>,
}

impl<P> Default for PlanCache<P> {
    fn default() -> Self {
        PlanCache {
            last: None,
            all: HashMap::new(),
        }
    }
}

const PLAN_LIMIT: usize = 1000;

impl<P> PlanCache<P> {
    /// The plan of `schema`, made by `make` the first time.
    #[inline]
    pub fn get(&mut self, schema: &SchemaRef, make: impl FnOnce() -> R<P>) -> R<Arc<P>> {
        if let Some((s, p)) = &self.last {
            if Arc::ptr_eq(s, schema) {
                return Ok(p.clone());
            }
        }
        let key = Arc::as_ptr(schema) as usize;
        let plan = match self.all.get(&key) {
            Some((_, p)) => p.clone(),
            None => {
                let p = Arc::new(make()?);
                if self.all.len() >= PLAN_LIMIT {
                    self.all.clear();
                }
                // the cache holds the schema, so its address is not reused meanwhile
                self.all.insert(key, (schema.clone(), p.clone()));
                p
            }
        };
        self.last = Some((schema.clone(), plan.clone()));
        Ok(plan)
    }
}

/// Field `i` of a struct as `Struct.get` reads it: the field's default when the value is null
/// (with `rnwd`; else as put).
#[inline]
pub fn field_value(sv: &StructVal, i: usize, rnwd: bool) -> &Value {
    let v = &sv.values[i];
    if rnwd && v.is_null() {
        if let Some(d) = sv.schema.fields[i].schema.default_value() {
            return d;
        }
    }
    v
}

/// `Struct.put`'s refusal of a null for a required field, the one check a stage needs for a
/// value it copies from a struct whose field has the same schema (a struct some SMT built
/// without setting every field, as InsertField's is without a record timestamp, holds one).
pub fn null_ok(s: &NSchema, v: &Value) -> R<()> {
    if v.is_null() && !s.optional {
        return Err(Fallback); // the Python stage raises put's DataException
    }
    Ok(())
}

/// `Struct.put`'s check of a value for a field (`validate_value`, deep): a null needs an
/// optional schema (defaults do not count), a value must be of the schema's type, a struct of
/// the very schema with every field valid, list items and map entries likewise.
pub fn put_ok(s: &NSchema, v: &Value) -> R<()> {
    let ok = match (v, s.logical) {
        (Value::Null, _) => s.optional,
        (Value::Decimal(_), Logical::Decimal(_)) => true,
        (Value::Date(_), Logical::Date) => true,
        (Value::Time(_), Logical::Time) => true,
        (Value::Timestamp(_), Logical::Timestamp) => true,
        (_, Logical::None) => match (v, s.ty) {
            (Value::Bool(_), Ty::Boolean) => true,
            (Value::F32(_) | Value::F64(_), Ty::Float32 | Ty::Float64) => true,
            (Value::Str(_), Ty::String) => true,
            (Value::Bytes(_), Ty::Bytes) => true,
            (Value::Array(items), Ty::Array) => {
                let item = s.value.as_ref().ok_or(Fallback)?;
                for x in items {
                    put_ok(item, x)?;
                }
                true
            }
            (Value::Map(entries), Ty::Map) => {
                let (ks, vs) = (s.key.as_ref().ok_or(Fallback)?, s.value.as_ref().ok_or(Fallback)?);
                for (k, x) in entries {
                    put_ok(ks, k)?;
                    put_ok(vs, x)?;
                }
                true
            }
            (Value::Struct(sv), Ty::Struct) => {
                if !std::ptr::eq(&*sv.schema, s) {
                    return Err(Fallback); // the Python check compares the schemas
                }
                // Struct.validate: a null is fine where the field is optional or has a default
                for (f, x) in s.fields.iter().zip(sv.values.iter()) {
                    if !(x.is_null() && f.schema.default_value().is_some()) {
                        put_ok(&f.schema, x)?;
                    }
                }
                true
            }
            (_, Ty::Int8 | Ty::Int16 | Ty::Int32 | Ty::Int64) => match v.as_integer() {
                Some(n) => {
                    let (lo, hi) = s.ty.int_range().unwrap();
                    n >= lo && n <= hi
                }
                None => false,
            },
            _ => false,
        },
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Fallback)
    }
}

/// Which half of the record a step works on.
#[derive(Clone, Copy)]
pub struct Side {
    pub key: bool,
}

impl Side {
    pub fn of(spec: &Bound<'_, PyDict>) -> PyResult<Side> {
        Ok(Side {
            key: get(spec, "is_key")?,
        })
    }
}

/// Put `entries` (inserted in this order) into the iteration order of the Java map `kind`.
pub fn java_order(mut entries: Vec<(Value, Value)>, kind: MapKind) -> Vec<(Value, Value)> {
    order_entries(&mut entries, kind);
    entries
}

/// Set `key` to `v` in map entries as `Map.put` does (an existing key keeps its place).
pub fn map_put(entries: &mut Vec<(Value, Value)>, key: &str, v: Value) {
    for (k, x) in entries.iter_mut() {
        if matches!(k, Value::Str(s) if s == key) {
            *x = v;
            return;
        }
    }
    entries.push((Value::Str(Str::new(key)), v));
}

/// The value of `key` in map entries (`Map.get`).
pub fn map_get<'a>(entries: &'a [(Value, Value)], key: &str) -> Option<&'a Value> {
    entries
        .iter()
        .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
        .map(|(_, v)| v)
}

/// Whether every key of a map is a string (what the schemaless SMTs' `Map<String, Object>`
/// casts assume; anything else is left to the Python path).
pub fn string_keys(entries: &[(Value, Value)]) -> bool {
    entries.iter().all(|(k, _)| matches!(k, Value::Str(_)))
}
