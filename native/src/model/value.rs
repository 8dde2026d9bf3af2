//! Connect values held natively: what a Java worker holds as `Object`s, self-describing.
//!
//! Each variant stands for one Java class a Connect value can be (`Byte`, `Short`, `Integer`,
//! `Long`, `Float`, `Double`, `String`, `byte[]`, `BigDecimal`, `java.util.Date`, `List`, `Map`,
//! `Struct`), so that a value keeps what Java would know of it even without a schema: a
//! schemaless map holding a `Float` prints `Float.toString` and hashes as a `Float`. Logical
//! values keep which logical type they are (Python models them as three classes); a Java worker
//! holds all three as `java.util.Date`.
//!
//! A map's entries are kept in the iteration order of the Java map it stands for (see
//! `java::hash` for how builders compute it). `Py` holds a Python object the native model does
//! not represent (a value a Python plugin made that fits no variant, a number beyond 128 bits):
//! code meeting one hands the record back to the Python path.

use crate::model::pyobj::PyObj;
use crate::model::schema::SchemaRef;
use smol_str::SmolStr;
use std::sync::Arc;

/// A string value (inline up to 23 bytes, shared beyond).
pub type Str = SmolStr;

/// A `BigDecimal`: `unscaled × 10^-scale`. Values beyond 128 bits are held as `Value::Py`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dec {
    pub unscaled: i128,
    pub scale: i32,
}

/// A `byte[]` value: bytes the native code made, or a Python `bytes` object held as it is (a
/// consumed key or value, bytes a task returned), so that passing bytes through (a
/// ByteArrayConverter on both ends) copies nothing; or the content of a `java.nio.ByteBuffer`
/// (Avro's `bytes` and `fixed` as Confluent's AvroData reads them), which prints and hashes as
/// a buffer does and is the reference's `ByteBuffer` in Python.
#[derive(Clone)]
pub enum Bytes {
    Own(Arc<[u8]>),
    /// An exact `bytes` object (immutable: its buffer lives as long as the reference).
    Py(PyObj),
    /// A `ByteBuffer` wrapping exactly these bytes.
    Buffer(Arc<[u8]>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Own(b) | Bytes::Buffer(b) => b,
            Bytes::Py(o) => unsafe {
                std::slice::from_raw_parts(
                    pyo3::ffi::PyBytes_AS_STRING(o.as_ptr()) as *const u8,
                    pyo3::ffi::Py_SIZE(o.as_ptr()) as usize,
                )
            },
        }
    }
}

/// A `Struct`: its schema and one value per field, in the schema's field order.
pub struct StructVal {
    pub schema: SchemaRef,
    pub values: Vec<Value>,
}

pub enum Value {
    Null,
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Str(Str),
    Bytes(Bytes),
    Decimal(Box<Dec>),
    /// Connect Date: days since the epoch.
    Date(i32),
    /// Connect Time: milliseconds since midnight.
    Time(i32),
    /// Connect Timestamp: milliseconds since the epoch.
    Timestamp(i64),
    Array(Vec<Value>),
    /// Entries in the iteration order of the Java map this stands for.
    Map(Vec<(Value, Value)>),
    Struct(Box<StructVal>),
    Py(PyObj),
}

impl Clone for Value {
    /// A deep copy (structs, lists and maps are copied; strings, bytes and Python objects are
    /// shared). Callers hold the GIL (a `Py` value's reference count changes).
    fn clone(&self) -> Value {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(*b),
            Value::I8(v) => Value::I8(*v),
            Value::I16(v) => Value::I16(*v),
            Value::I32(v) => Value::I32(*v),
            Value::I64(v) => Value::I64(*v),
            Value::F32(v) => Value::F32(*v),
            Value::F64(v) => Value::F64(*v),
            Value::Str(s) => Value::Str(s.clone()),
            Value::Bytes(b) => Value::Bytes(b.clone()),
            Value::Decimal(d) => Value::Decimal(d.clone()),
            Value::Date(v) => Value::Date(*v),
            Value::Time(v) => Value::Time(*v),
            Value::Timestamp(v) => Value::Timestamp(*v),
            Value::Array(items) => Value::Array(items.clone()),
            Value::Map(entries) => Value::Map(entries.clone()),
            Value::Struct(s) => Value::Struct(Box::new(StructVal {
                schema: s.schema.clone(),
                values: s.values.clone(),
            })),
            Value::Py(o) => Value::Py(o.clone()),
        }
    }
}

impl Value {
    #[inline]
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The value as a Java `long` when it is one of the integer classes.
    #[inline]
    pub fn as_integer(&self) -> Option<i64> {
        match *self {
            Value::I8(v) => Some(v as i64),
            Value::I16(v) => Some(v as i64),
            Value::I32(v) => Some(v as i64),
            Value::I64(v) => Some(v),
            _ => None,
        }
    }

    /// Whether anything inside is a Python object the native model does not represent.
    pub fn holds_py(&self) -> bool {
        match self {
            Value::Py(_) => true,
            Value::Array(items) => items.iter().any(Value::holds_py),
            Value::Map(entries) => entries.iter().any(|(k, v)| k.holds_py() || v.holds_py()),
            Value::Struct(s) => s.values.iter().any(Value::holds_py),
            _ => false,
        }
    }

    /// A struct value of `schema` with `values` (one per field, in field order).
    #[inline]
    pub fn new_struct(schema: SchemaRef, values: Vec<Value>) -> Value {
        Value::Struct(Box::new(StructVal { schema, values }))
    }
}
