//! Native converters: bytes to native values and back, for the converters that have a native
//! form (JsonConverter, Confluent's AvroConverter, StringConverter in UTF-8, ByteArrayConverter,
//! the number converters).
//!
//! A converter plugin hands the runtime its native form (`kconnect._hot_path.
//! NativeConverterProvider`); the record batch then converts whole columns with it. A record
//! the native form cannot convert is reported back and the plugin's Python methods convert it
//! (or raise), so the results and errors stay the plugin's own.

pub mod avro;
pub mod json;
pub mod protobuf;

use crate::json::read::{Fallback, R};
use crate::model::pyobj::PyObj;
use crate::model::record::TopicName;
use crate::model::schema::{NSchema, SchemaRef};
use crate::model::value::{Bytes, Str, Value};
use avro::AvroState;
use json::JsonState;
use protobuf::ProtobufState;
use crate::pyconv::from_py::value_of;
use crate::pyconv::to_py::to_py;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};
use std::sync::Arc;

pub enum Kind {
    Json(JsonState),
    /// Confluent's AvroConverter: the registry's wire format around Avro binary.
    Avro(AvroState),
    /// Confluent's ProtobufConverter: the registry's wire format around a Protobuf message.
    Protobuf(ProtobufState),
    /// StringConverter with `converter.encoding` UTF-8: reads OPTIONAL_STRING.
    Utf8(SchemaRef),
    /// ByteArrayConverter: reads OPTIONAL_BYTES.
    Bytes(SchemaRef),
    /// A fixed-width number converter: its schema, width in bytes, floating point or not.
    Number(SchemaRef, usize, bool),
    /// BooleanConverter: one byte, 1 or 0; reads OPTIONAL_BOOLEAN.
    Boolean(SchemaRef),
    /// SimpleHeaderConverter: writes simple values (`Values.convertToString`), reads the text
    /// that `Values.parseString` takes for a plain STRING (the schema here).
    SimpleHeader(SchemaRef),
}

#[pyclass(module = "kconnect_native")]
pub struct Converter {
    pub kind: Kind,
}

#[pymethods]
impl Converter {
    /// The JsonConverter: its settings, `resolve(schema_text: bytes) -> Schema | None` and
    /// `prefix_of(schema) -> bytes` (the envelope head up to the payload).
    #[staticmethod]
    fn json(
        schemas_enable: bool,
        decimal_numeric: bool,
        replace_null_with_default: bool,
        cache_size: usize,
        resolve: Bound<'_, PyAny>,
        prefix_of: Bound<'_, PyAny>,
    ) -> Converter {
        Converter {
            kind: Kind::Json(JsonState::new(
                schemas_enable,
                decimal_numeric,
                replace_null_with_default,
                cache_size,
                PyObj::of(&resolve),
                PyObj::of(&prefix_of),
            )),
        }
    }

    /// Confluent's AvroConverter: `resolve(topic, schema_id) -> (Schema | None, plan) | None`
    /// (what a consumed record's schema id decodes to on its topic) and `prefix_of(topic,
    /// schema) -> (bytes, plan) | None` (the wire prefix and plan a Connect schema encodes with
    /// on that topic), each asked once per (topic, id) / (topic, schema object); None: the
    /// Python converter does those records (see `avro.rs`).
    #[staticmethod]
    fn avro(resolve: Bound<'_, PyAny>, prefix_of: Bound<'_, PyAny>) -> Converter {
        Converter {
            kind: Kind::Avro(AvroState::new(PyObj::of(&resolve), PyObj::of(&prefix_of))),
        }
    }

    /// Confluent's ProtobufConverter: `resolve(topic, schema_id)` and `prefix_of(topic,
    /// schema)` as for `avro`, the plans those of `kconnect.converters.protobuf.native_plan`
    /// and the prefix the magic byte, the id and the message indexes (see `protobuf.rs`).
    #[staticmethod]
    fn protobuf(resolve: Bound<'_, PyAny>, prefix_of: Bound<'_, PyAny>) -> Converter {
        Converter {
            kind: Kind::Protobuf(ProtobufState::new(PyObj::of(&resolve), PyObj::of(&prefix_of))),
        }
    }

    /// StringConverter in UTF-8 (`schema`: OPTIONAL_STRING_SCHEMA).
    #[staticmethod]
    fn utf8(schema: Bound<'_, PyAny>) -> PyResult<Converter> {
        Ok(Converter {
            kind: Kind::Utf8(NSchema::of(&schema)?),
        })
    }

    /// ByteArrayConverter (`schema`: OPTIONAL_BYTES_SCHEMA).
    #[staticmethod]
    fn byte_array(schema: Bound<'_, PyAny>) -> PyResult<Converter> {
        Ok(Converter {
            kind: Kind::Bytes(NSchema::of(&schema)?),
        })
    }

    /// SimpleHeaderConverter: writes strings, integers and booleans as their text; reads text
    /// that starts with an ASCII letter and is not a literal (`null`, `true`, `false`) as the
    /// STRING it is (`string_schema`: STRING_SCHEMA). Everything else -- numbers, dates,
    /// arrays, maps, quoted text -- is left to the Python converter's inference.
    #[staticmethod]
    fn simple_header(string_schema: Bound<'_, PyAny>) -> PyResult<Converter> {
        Ok(Converter {
            kind: Kind::SimpleHeader(NSchema::of(&string_schema)?),
        })
    }

    /// A number converter: its schema, its width (2, 4 or 8 bytes) and whether it is a
    /// floating-point one.
    #[staticmethod]
    fn number(schema: Bound<'_, PyAny>, width: usize, floating: bool) -> PyResult<Converter> {
        Ok(Converter {
            kind: Kind::Number(NSchema::of(&schema)?, width, floating),
        })
    }

    /// BooleanConverter (`schema`: OPTIONAL_BOOLEAN_SCHEMA).
    #[staticmethod]
    fn boolean(schema: Bound<'_, PyAny>) -> PyResult<Converter> {
        Ok(Converter {
            kind: Kind::Boolean(NSchema::of(&schema)?),
        })
    }

    /// Convert many records' bytes (None: a null) to Connect data, as the plugin's
    /// `to_connect_batch` does: per value `make(schema, value)` (the plugin's
    /// `SchemaAndValue`), or `fallback` for a value this form hands back (the plugin's Python
    /// code converts it, or raises); and how many were handed back. `topic`: the records'
    /// topic (the Avro form hands every value back without one; the others ignore it).
    #[pyo3(signature = (values, make, fallback, topic=None))]
    fn decode_values(
        &mut self,
        py: Python<'_>,
        values: Bound<'_, PyList>,
        make: Bound<'_, PyAny>,
        fallback: Bound<'_, PyAny>,
        topic: Option<Bound<'_, PyString>>,
    ) -> PyResult<(Py<PyList>, usize)> {
        let topic = topic_of(topic)?;
        let out = PyList::empty(py);
        let mut misses = 0;
        for item in values.iter() {
            // bytearray, memoryview...: the Python code takes them
            match unsafe { self.decode_obj(py, topic.as_ref(), item.as_ptr()) }.unwrap_or(Err(Fallback)) {
                Ok((schema, v)) => {
                    let schema_py = match &schema {
                        Some(s) => s.py.clone(),
                        None => PyObj::none(),
                    };
                    let value = to_py(py, &v, schema.is_some(), schema.as_deref())?;
                    out.append(make.call1((schema_py.bind(py), value.bind(py)))?)?;
                }
                Err(Fallback) => {
                    misses += 1;
                    out.append(&fallback)?;
                }
            }
        }
        Ok((out.unbind(), misses))
    }

    /// Serialize many `(schema, value)` pairs, as the plugin's `from_connect_batch` does: per
    /// pair its bytes (None for a null), or `fallback` for a pair this form hands back; and
    /// how many were handed back. `topic`: as for `decode_values`.
    #[pyo3(signature = (items, fallback, topic=None))]
    fn encode_values(
        &mut self,
        py: Python<'_>,
        items: Bound<'_, PyList>,
        fallback: Bound<'_, PyAny>,
        topic: Option<Bound<'_, PyString>>,
    ) -> PyResult<(Py<PyList>, usize)> {
        let topic = topic_of(topic)?;
        let out = PyList::empty(py);
        let mut misses = 0;
        let mut buf = Vec::new();
        for item in items.iter() {
            let (schema, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let schema = if schema.is_none() { None } else { Some(NSchema::of(&schema)?) };
            let v = value_of(&value, schema.as_ref());
            if let Some(o) = self.passthrough(schema.as_ref(), &v) {
                out.append(o.bind(py))?;
                continue;
            }
            buf.clear();
            match self.encode(py, topic.as_ref(), schema.as_ref(), &v, &mut buf) {
                Ok(true) => out.append(PyBytes::new(py, &buf))?,
                Ok(false) => out.append(py.None())?,
                Err(Fallback) => {
                    misses += 1;
                    out.append(&fallback)?;
                }
            }
        }
        Ok((out.unbind(), misses))
    }
}

/// The topic argument of `decode_values` / `encode_values` as the converters take it.
fn topic_of(topic: Option<Bound<'_, PyString>>) -> PyResult<Option<TopicName>> {
    Ok(match topic {
        None => None,
        Some(t) => Some(TopicName {
            name: Str::new(t.to_str()?),
            py: PyObj::of(t.as_any()),
        }),
    })
}

impl Converter {
    /// `decode` of a Python object, a consumed key or value of a record of `topic`: None when
    /// it is neither `bytes` nor None (the plugin's Python code takes it). A
    /// ByteArrayConverter holds the very object, as Java's hands on its `byte[]`.
    ///
    /// # Safety
    /// `p` is a valid object pointer and the GIL is held.
    pub unsafe fn decode_obj(
        &mut self,
        py: Python<'_>,
        topic: Option<&TopicName>,
        p: *mut pyo3::ffi::PyObject,
    ) -> Option<R<(Option<SchemaRef>, Value)>> {
        use pyo3::ffi;
        if p == ffi::Py_None() {
            return Some(self.decode(py, topic, None));
        }
        if ffi::PyBytes_CheckExact(p) == 0 {
            return None;
        }
        if let Kind::Bytes(s) = &self.kind {
            return Some(Ok((Some(s.clone()), Value::Bytes(Bytes::Py(PyObj::borrowed(p))))));
        }
        let data = std::slice::from_raw_parts(ffi::PyBytes_AS_STRING(p) as *const u8, ffi::Py_SIZE(p) as usize);
        Some(self.decode(py, topic, Some(data)))
    }

    /// The `bytes` object a ByteArrayConverter writes for a value that is one already (Java
    /// hands the `byte[]` on as it is); None: use `encode`.
    pub fn passthrough(&self, schema: Option<&SchemaRef>, v: &Value) -> Option<PyObj> {
        match (&self.kind, v) {
            (Kind::Bytes(_), Value::Bytes(Bytes::Py(o)))
                if schema.is_none_or(|s| s.ty == crate::model::schema::Ty::Bytes) =>
            {
                Some(o.clone())
            }
            _ => None,
        }
    }

    /// A record's bytes (None: a null key or value) to its schema and value. `topic`: the
    /// record's (the Avro form's subjects depend on it; the other kinds ignore it); None for a
    /// header, or when the caller does not know it.
    pub fn decode(
        &mut self,
        py: Python<'_>,
        topic: Option<&TopicName>,
        data: Option<&[u8]>,
    ) -> R<(Option<SchemaRef>, Value)> {
        match &mut self.kind {
            Kind::SimpleHeader(s) => {
                let Some(d) = data else {
                    return Ok((None, Value::Null));
                };
                let text = std::str::from_utf8(d).map_err(|_| Fallback)?;
                if text.is_empty() {
                    return Ok((Some(s.clone()), Value::Str(Str::new(""))));
                }
                if !text.as_bytes()[0].is_ascii_alphabetic() || matches!(text, "null" | "true" | "false") {
                    return Err(Fallback);
                }
                Ok((Some(s.clone()), Value::Str(Str::new(text))))
            }
            Kind::Json(j) => match data {
                None => Ok((None, Value::Null)),
                Some(d) => j.decode(py, d),
            },
            Kind::Avro(a) => a.decode(py, topic, data),
            Kind::Protobuf(p) => p.decode(py, topic, data),
            Kind::Utf8(s) => Ok((
                Some(s.clone()),
                match data {
                    None => Value::Null,
                    Some(d) => Value::Str(Str::new(std::str::from_utf8(d).map_err(|_| Fallback)?)),
                },
            )),
            Kind::Bytes(s) => Ok((
                Some(s.clone()),
                match data {
                    None => Value::Null,
                    Some(d) => Value::Bytes(Bytes::Own(Arc::from(d))),
                },
            )),
            Kind::Boolean(s) => Ok((
                Some(s.clone()),
                match data {
                    None => Value::Null,
                    Some([1]) => Value::Bool(true),
                    Some([0]) => Value::Bool(false),
                    Some(_) => return Err(Fallback), // the Python code raises Java's error
                },
            )),
            Kind::Number(s, width, floating) => Ok((
                Some(s.clone()),
                match data {
                    None => Value::Null,
                    Some(d) => {
                        if d.len() != *width {
                            return Err(Fallback);
                        }
                        match (*width, *floating) {
                            (2, false) => Value::I16(i16::from_be_bytes([d[0], d[1]])),
                            (4, false) => Value::I32(i32::from_be_bytes(d.try_into().unwrap())),
                            (8, false) => Value::I64(i64::from_be_bytes(d.try_into().unwrap())),
                            (4, true) => Value::F32(f32::from_be_bytes(d.try_into().unwrap())),
                            (8, true) => Value::F64(f64::from_be_bytes(d.try_into().unwrap())),
                            _ => return Err(Fallback),
                        }
                    }
                },
            )),
        }
    }

    /// A record's schema and value to bytes appended to `out`; false for a null. `topic`: as
    /// for `decode`.
    pub fn encode(
        &mut self,
        py: Python<'_>,
        topic: Option<&TopicName>,
        schema: Option<&SchemaRef>,
        v: &Value,
        out: &mut Vec<u8>,
    ) -> R<bool> {
        match &mut self.kind {
            Kind::Json(j) => j.encode(py, schema, v, out),
            Kind::Avro(a) => a.encode(py, topic, schema, v, out),
            Kind::Protobuf(p) => p.encode(py, topic, schema, v, out),
            Kind::Utf8(_) => match v {
                Value::Null => Ok(false),
                Value::Str(s) => {
                    out.extend_from_slice(s.as_bytes());
                    Ok(true)
                }
                _ => Err(Fallback), // Java's toString of other values: the Python path
            },
            Kind::Bytes(_) => {
                if let Some(s) = schema {
                    if s.ty != crate::model::schema::Ty::Bytes {
                        return Err(Fallback);
                    }
                }
                match v {
                    Value::Null => Ok(false),
                    Value::Bytes(b) => {
                        out.extend_from_slice(b);
                        Ok(true)
                    }
                    _ => Err(Fallback),
                }
            }
            Kind::Boolean(_) => {
                if schema.is_some_and(|s| s.ty != crate::model::schema::Ty::Boolean) {
                    return Err(Fallback);
                }
                match v {
                    Value::Null => Ok(false),
                    Value::Bool(b) => {
                        out.push(*b as u8);
                        Ok(true)
                    }
                    _ => Err(Fallback),
                }
            }
            Kind::Number(_, width, floating) => {
                if v.is_null() {
                    return Ok(false);
                }
                let (width, floating) = (*width, *floating);
                if floating {
                    let f = match v {
                        Value::F64(f) => *f,
                        Value::F32(f) => *f as f64,
                        _ => v.as_integer().ok_or(Fallback)? as f64,
                    };
                    if width == 4 {
                        if f.is_finite() && !(f as f32).is_finite() {
                            return Err(Fallback); // Python's struct refuses it
                        }
                        out.extend_from_slice(&(f as f32).to_be_bytes());
                    } else {
                        out.extend_from_slice(&f.to_be_bytes());
                    }
                    return Ok(true);
                }
                let n = v.as_integer().ok_or(Fallback)?;
                match width {
                    2 => out.extend_from_slice(&i16::try_from(n).map_err(|_| Fallback)?.to_be_bytes()),
                    4 => out.extend_from_slice(&i32::try_from(n).map_err(|_| Fallback)?.to_be_bytes()),
                    8 => out.extend_from_slice(&n.to_be_bytes()),
                    _ => return Err(Fallback),
                }
                Ok(true)
            }
            Kind::SimpleHeader(_) => {
                match v {
                    Value::Null => return Ok(false),
                    Value::Str(s) => out.extend_from_slice(s.as_bytes()),
                    Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
                    Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => {
                        crate::json::write::push_i64(out, v.as_integer().unwrap())
                    }
                    _ => return Err(Fallback),
                }
                Ok(true)
            }
        }
    }
}
