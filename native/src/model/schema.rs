//! Connect schemas as the native code reads them: `NSchema`, made once per Python `Schema`.
//!
//! A Python `kconnect.api.Schema` stays the schema everyone else sees; the native code keeps,
//! per schema object, what it needs to decode, encode, render and transform values of it: the
//! type, its logical kind, optionality, the default value (native), field names and schemas,
//! item/key/value schemas. `NSchema::of` reads a Python schema once and remembers it by object
//! identity (the `NSchema` holds the Python object, so the identity cannot be reused while it
//! is remembered); schemas are immutable, so nothing is ever read twice.
//!
//! Everything here runs with the GIL held.

use crate::model::pyobj::PyObj;
use crate::model::value::{Str, Value};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyMapping;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub type SchemaRef = Arc<NSchema>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Boolean,
    String,
    Bytes,
    Array,
    Map,
    Struct,
}

impl Ty {
    pub fn from_name(name: &str) -> Option<Ty> {
        Some(match name {
            "int8" => Ty::Int8,
            "int16" => Ty::Int16,
            "int32" => Ty::Int32,
            "int64" => Ty::Int64,
            "float32" => Ty::Float32,
            "float64" => Ty::Float64,
            "boolean" => Ty::Boolean,
            "string" => Ty::String,
            "bytes" => Ty::Bytes,
            "array" => Ty::Array,
            "map" => Ty::Map,
            "struct" => Ty::Struct,
            _ => return None,
        })
    }

    /// Kafka's `Type.name()` (upper case), as error messages print it.
    pub fn upper(self) -> &'static str {
        match self {
            Ty::Int8 => "INT8",
            Ty::Int16 => "INT16",
            Ty::Int32 => "INT32",
            Ty::Int64 => "INT64",
            Ty::Float32 => "FLOAT32",
            Ty::Float64 => "FLOAT64",
            Ty::Boolean => "BOOLEAN",
            Ty::String => "STRING",
            Ty::Bytes => "BYTES",
            Ty::Array => "ARRAY",
            Ty::Map => "MAP",
            Ty::Struct => "STRUCT",
        }
    }

    /// The inclusive range of an integer type.
    pub fn int_range(self) -> Option<(i64, i64)> {
        match self {
            Ty::Int8 => Some((i8::MIN as i64, i8::MAX as i64)),
            Ty::Int16 => Some((i16::MIN as i64, i16::MAX as i64)),
            Ty::Int32 => Some((i32::MIN as i64, i32::MAX as i64)),
            Ty::Int64 => Some((i64::MIN, i64::MAX)),
            _ => None,
        }
    }
}

/// The logical types of `org.apache.kafka.connect.data`, recognised by schema name (and the
/// right base type) as Kafka does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logical {
    None,
    /// Decimal over BYTES; `None` scale: the schema has no usable `scale` parameter.
    Decimal(Option<i32>),
    Date,
    Time,
    Timestamp,
}

pub const DECIMAL_NAME: &str = "org.apache.kafka.connect.data.Decimal";
pub const DATE_NAME: &str = "org.apache.kafka.connect.data.Date";
pub const TIME_NAME: &str = "org.apache.kafka.connect.data.Time";
pub const TIMESTAMP_NAME: &str = "org.apache.kafka.connect.data.Timestamp";

pub struct NField {
    pub name: Str,
    pub schema: SchemaRef,
}

pub struct NSchema {
    pub ty: Ty,
    pub logical: Logical,
    pub optional: bool,
    pub name: Option<Str>,
    /// A logical type's name over another type (an int8 named Date, as Cast makes): Java's
    /// JsonConverter picks its converter by name and refuses the value, so the native
    /// converters leave such values to Python.
    pub misnamed: bool,
    pub fields: Vec<NField>,
    /// ARRAY items / MAP values.
    pub value: Option<SchemaRef>,
    /// MAP keys.
    pub key: Option<SchemaRef>,
    /// The default value (None: no default). Set right after the schema is made, since a
    /// STRUCT default is a struct of this very schema.
    default: OnceLock<Option<Value>>,
    /// The Python `Schema` object.
    pub py: PyObj,
}

impl NSchema {
    #[inline]
    pub fn default_value(&self) -> Option<&Value> {
        self.default.get().and_then(|d| d.as_ref())
    }

    /// The index of field `name` (STRUCT).
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// The native schema of the Python schema `obj` (made once per object).
    pub fn of(obj: &Bound<'_, PyAny>) -> PyResult<SchemaRef> {
        let key = obj.as_ptr() as usize;
        if let Some(s) = registry().lock().unwrap().get(&key) {
            return Ok(s.clone());
        }
        let made = Self::read(obj)?;
        let mut reg = registry().lock().unwrap();
        if reg.len() >= REGISTRY_LIMIT {
            // Schemas still in use stay alive through their Arcs; only the lookup is lost.
            reg.clear();
        }
        reg.insert(key, made.clone());
        Ok(made)
    }

    fn read(obj: &Bound<'_, PyAny>) -> PyResult<SchemaRef> {
        let type_name: String = obj.getattr("_type")?.getattr("value")?.extract()?;
        let ty = Ty::from_name(&type_name)
            .ok_or_else(|| PyValueError::new_err(format!("unknown schema type {type_name}")))?;
        let optional: bool = obj.getattr("_optional")?.extract()?;
        let name: Option<String> = obj.getattr("_name")?.extract()?;
        let logical = match name.as_deref() {
            Some(DECIMAL_NAME) if ty == Ty::Bytes => Logical::Decimal(decimal_scale(obj)?),
            Some(DATE_NAME) if ty == Ty::Int32 => Logical::Date,
            Some(TIME_NAME) if ty == Ty::Int32 => Logical::Time,
            Some(TIMESTAMP_NAME) if ty == Ty::Int64 => Logical::Timestamp,
            _ => Logical::None,
        };
        let misnamed = logical == Logical::None
            && matches!(name.as_deref(), Some(DECIMAL_NAME | DATE_NAME | TIME_NAME | TIMESTAMP_NAME));
        let mut fields = Vec::new();
        if ty == Ty::Struct {
            for f in obj.getattr("_fields")?.try_iter()? {
                let f = f?;
                let fname: String = f.getattr("_name")?.extract()?;
                fields.push(NField {
                    name: Str::new(fname),
                    schema: NSchema::of(&f.getattr("_schema")?)?,
                });
            }
        }
        let sub = |attr: &str| -> PyResult<Option<SchemaRef>> {
            let s = obj.getattr(attr)?;
            if s.is_none() {
                Ok(None)
            } else {
                Ok(Some(NSchema::of(&s)?))
            }
        };
        let schema = Arc::new(NSchema {
            ty,
            logical,
            optional,
            name: name.map(Str::new),
            misnamed,
            fields,
            value: sub("_value_schema")?,
            key: sub("_key_schema")?,
            default: OnceLock::new(),
            py: PyObj::of(obj),
        });
        let default = obj.getattr("_default")?;
        let native_default = if default.is_none() {
            None
        } else {
            Some(crate::pyconv::from_py::value_of(&default, Some(&schema)))
        };
        let _ = schema.default.set(native_default);
        Ok(schema)
    }
}

fn decimal_scale(obj: &Bound<'_, PyAny>) -> PyResult<Option<i32>> {
    let params = obj.getattr("_parameters")?;
    if params.is_none() {
        return Ok(None);
    }
    let params = params.cast_into::<PyMapping>()?;
    match params.get_item("scale") {
        Ok(v) => Ok(v.extract::<String>().ok().and_then(|s| s.trim().parse().ok())),
        Err(_) => Ok(None),
    }
}

const REGISTRY_LIMIT: usize = 20_000;

fn registry() -> &'static Mutex<HashMap<usize, SchemaRef>> {
    static REG: OnceLock<Mutex<HashMap<usize, SchemaRef>>> = OnceLock::new();
    REG.get_or_init(|| Mutex::new(HashMap::new()))
}
