//! Source batches from the Java plugin host, read into kconnect's Python `SourceRecord`s.
//!
//! The grammar is `kconnect/java_host/java/PROTOCOL.md`'s ("Binary record batch"); the pure-Python
//! reader `kconnect.java_host.batches` is the reference. Python reads the batch's schema section
//! (a few schemas, once per task) and hands the record section to `host_source_records`, which
//! reads every record's values into the native model and makes the same Python records the
//! reference makes (`pyconv::records::record_to_py`): `Struct`s, `decimal.Decimal`, `date`,
//! `time`, UTC `datetime`, lists, dicts, schemaless values and source maps as plain Python
//! objects.
//!
//! Anything it is not sure to read exactly as the reference does -- an unknown schema id, a
//! logical name on another type, a Decimal without a scale or beyond 128 bits, a date or time
//! out of Python's range, a map keyed by structs, a malformed batch -- makes it answer None
//! before it has touched anything, and the reference reads the batch (raising its own errors).
//! Runs on the task thread with the GIL held.

use crate::model::pyobj::PyObj;
use crate::model::record::{Meta, NHeader, NRecord, SourceMeta, TopicName};
use crate::model::schema::{Logical, NSchema, SchemaRef, Ty};
use crate::model::value::{Bytes, Dec, Str, Value};
use crate::pyconv::records::record_to_py;
use crate::pyconv::to_py::new_str;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::collections::HashMap;
use std::sync::Arc;

/// Why the native reader gives the batch to the reference reader.
struct Unsure;

type R<T> = Result<T, Unsure>;

/// Days from 0001-01-01 and to 9999-12-31 relative to 1970-01-01: Python's `date` range.
const MIN_DAYS: i64 = -719_162;
const MAX_DAYS: i64 = 2_932_896;
const MS_PER_DAY: i64 = 86_400_000;

struct Reader<'a, 'py> {
    py: Python<'py>,
    data: &'a [u8],
    pos: usize,
    schemas: &'a Bound<'py, PyDict>,
    known: HashMap<i32, SchemaRef>,
    last_topic: Option<Arc<TopicName>>,
}

impl<'a, 'py> Reader<'a, 'py> {
    #[inline]
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or(Unsure)?;
        if end > self.data.len() {
            return Err(Unsure);
        }
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    #[inline]
    fn u8(&mut self) -> R<u8> {
        Ok(self.take(1)?[0])
    }

    #[inline]
    fn i16(&mut self) -> R<i16> {
        Ok(i16::from_be_bytes(self.take(2)?.try_into().unwrap()))
    }

    #[inline]
    fn i32(&mut self) -> R<i32> {
        Ok(i32::from_be_bytes(self.take(4)?.try_into().unwrap()))
    }

    #[inline]
    fn i64(&mut self) -> R<i64> {
        Ok(i64::from_be_bytes(self.take(8)?.try_into().unwrap()))
    }

    #[inline]
    fn f32(&mut self) -> R<f32> {
        Ok(f32::from_be_bytes(self.take(4)?.try_into().unwrap()))
    }

    #[inline]
    fn f64(&mut self) -> R<f64> {
        Ok(f64::from_be_bytes(self.take(8)?.try_into().unwrap()))
    }

    /// A length-prefixed UTF-8 string; None for length -1.
    fn string(&mut self) -> R<Option<&'a str>> {
        let n = self.i32()?;
        if n < 0 {
            return Ok(None);
        }
        let b = self.take(n as usize)?;
        std::str::from_utf8(b).map(Some).map_err(|_| Unsure)
    }

    fn raw(&mut self) -> R<&'a [u8]> {
        let n = self.i32()?;
        if n < 0 {
            return Err(Unsure);
        }
        self.take(n as usize)
    }

    fn count(&mut self) -> R<usize> {
        let n = self.i32()?;
        if n < 0 {
            return Err(Unsure);
        }
        Ok(n as usize)
    }

    fn schema_ref(&mut self) -> R<Option<SchemaRef>> {
        let id = self.i32()?;
        if id < 0 {
            return Ok(None);
        }
        if let Some(s) = self.known.get(&id) {
            return Ok(Some(s.clone()));
        }
        let obj = self.schemas.get_item(id).map_err(|_| Unsure)?.ok_or(Unsure)?;
        let s = NSchema::of(&obj).map_err(|_| Unsure)?;
        self.known.insert(id, s.clone());
        Ok(Some(s))
    }

    /// A value of `schema` (its presence byte first).
    fn value(&mut self, schema: &SchemaRef) -> R<Value> {
        if self.u8()? == 0 {
            return Ok(Value::Null);
        }
        if schema.misnamed {
            return Err(Unsure); // the reference applies the logical conversion by name
        }
        Ok(match schema.ty {
            Ty::String => match self.string()? {
                None => Value::Null,
                Some(s) => Value::Str(Str::new(s)),
            },
            Ty::Int64 => {
                let v = self.i64()?;
                if schema.logical == Logical::Timestamp {
                    let days = v.div_euclid(MS_PER_DAY);
                    if !(MIN_DAYS..=MAX_DAYS).contains(&days) {
                        return Err(Unsure);
                    }
                    Value::Timestamp(v)
                } else {
                    Value::I64(v)
                }
            }
            Ty::Int32 => {
                let v = self.i32()?;
                match schema.logical {
                    Logical::Date => {
                        if !(MIN_DAYS..=MAX_DAYS).contains(&(v as i64)) {
                            return Err(Unsure);
                        }
                        Value::Date(v)
                    }
                    Logical::Time => {
                        if v < 0 || v as i64 >= MS_PER_DAY {
                            return Err(Unsure); // 86400000 and out-of-range: the reference's rules
                        }
                        Value::Time(v)
                    }
                    _ => Value::I32(v),
                }
            }
            Ty::Struct => {
                let mut values = Vec::with_capacity(schema.fields.len());
                for f in &schema.fields {
                    values.push(self.value(&f.schema)?);
                }
                Value::new_struct(schema.clone(), values)
            }
            Ty::Float64 => Value::F64(self.f64()?),
            Ty::Boolean => Value::Bool(self.u8()? != 0),
            Ty::Bytes => {
                let b = self.raw()?;
                match schema.logical {
                    Logical::Decimal(Some(scale)) => {
                        if b.len() > 16 {
                            return Err(Unsure);
                        }
                        let mut unscaled: i128 = if b.first().is_some_and(|x| x & 0x80 != 0) { -1 } else { 0 };
                        for &x in b {
                            unscaled = (unscaled << 8) | x as i128;
                        }
                        Value::Decimal(Box::new(Dec { unscaled, scale }))
                    }
                    Logical::Decimal(None) => return Err(Unsure),
                    _ => Value::Bytes(Bytes::Own(Arc::from(b))),
                }
            }
            Ty::Array => {
                let item = schema.value.as_ref().ok_or(Unsure)?;
                let n = self.count()?;
                let mut items = Vec::with_capacity(n.min(4096));
                for _ in 0..n {
                    items.push(self.value(item)?);
                }
                Value::Array(items)
            }
            Ty::Map => {
                let (ks, vs) = (schema.key.as_ref().ok_or(Unsure)?, schema.value.as_ref().ok_or(Unsure)?);
                if matches!(ks.ty, Ty::Struct | Ty::Array | Ty::Map) {
                    return Err(Unsure); // the reference makes a dict of them (or fails)
                }
                let n = self.count()?;
                let mut entries: Vec<(Value, Value)> = Vec::with_capacity(n.min(4096));
                for _ in 0..n {
                    let k = self.value(ks)?;
                    let v = self.value(vs)?;
                    entries.push((k, v));
                }
                Value::Map(entries)
            }
            Ty::Int16 => Value::I16(self.i16()?),
            Ty::Int8 => Value::I8(self.u8()? as i8),
            Ty::Float32 => Value::F32(self.f32()?),
        })
    }

    /// A schemaless value, as the Python object the reference makes.
    fn schemaless(&mut self) -> R<PyObj> {
        let py = self.py;
        let tag = self.u8()?;
        unsafe {
            let made = match tag {
                0 => return Ok(PyObj::none()),
                8 => match self.string()? {
                    None => return Ok(PyObj::none()),
                    Some(s) => return new_str(py, s).map_err(|_| Unsure),
                },
                5 => ffi::PyLong_FromLongLong(self.i64()?),
                11 => {
                    let d = PyObj::steal(ffi::PyDict_New()).ok_or(Unsure)?;
                    for _ in 0..self.count()? {
                        let k = self.schemaless()?;
                        let v = self.schemaless()?;
                        if ffi::PyDict_SetItem(d.as_ptr(), k.as_ptr(), v.as_ptr()) != 0 {
                            ffi::PyErr_Clear();
                            return Err(Unsure);
                        }
                    }
                    return Ok(d);
                }
                1 => {
                    let b = self.u8()? != 0;
                    return Ok(PyObj::borrowed(if b { ffi::Py_True() } else { ffi::Py_False() }));
                }
                4 => ffi::PyLong_FromLongLong(self.i32()? as i64),
                7 => ffi::PyFloat_FromDouble(self.f64()?),
                10 => {
                    let n = self.count()?;
                    let l = PyObj::steal(ffi::PyList_New(0)).ok_or(Unsure)?;
                    for _ in 0..n {
                        let x = self.schemaless()?;
                        if ffi::PyList_Append(l.as_ptr(), x.as_ptr()) != 0 {
                            ffi::PyErr_Clear();
                            return Err(Unsure);
                        }
                    }
                    return Ok(l);
                }
                9 => {
                    let b = self.raw()?;
                    ffi::PyBytes_FromStringAndSize(b.as_ptr() as *const std::ffi::c_char, b.len() as ffi::Py_ssize_t)
                }
                2 => ffi::PyLong_FromLongLong(self.u8()? as i8 as i64),
                3 => ffi::PyLong_FromLongLong(self.i16()? as i64),
                6 => ffi::PyFloat_FromDouble(self.f32()? as f64),
                12 => {
                    let schema = self.schema_ref()?.ok_or(Unsure)?;
                    let v = self.value(&schema)?;
                    return crate::pyconv::to_py::to_py(py, &v, true, Some(&schema)).map_err(|_| Unsure);
                }
                _ => return Err(Unsure),
            };
            PyObj::steal(made).ok_or_else(|| {
                ffi::PyErr_Clear();
                Unsure
            })
        }
    }

    /// A key, a value or a header's value: a schema reference, then a value of it (or a
    /// schemaless value, held as its Python object).
    fn keyed(&mut self) -> R<(Option<SchemaRef>, Value)> {
        match self.schema_ref()? {
            Some(s) => {
                let v = self.value(&s)?;
                Ok((Some(s), v))
            }
            None => {
                let o = self.schemaless()?;
                Ok((None, if o.is_none() { Value::Null } else { Value::Py(o) }))
            }
        }
    }

    fn topic(&mut self) -> R<Arc<TopicName>> {
        let name = self.string()?.ok_or(Unsure)?;
        if let Some(t) = &self.last_topic {
            if t.name == name {
                return Ok(t.clone());
            }
        }
        let py = unsafe { new_str(self.py, name) }.map_err(|_| Unsure)?;
        let t = Arc::new(TopicName { name: Str::new(name), py });
        self.last_topic = Some(t.clone());
        Ok(t)
    }

    fn record(&mut self) -> R<(i64, NRecord)> {
        let seq = self.i64()?;
        let source_partition = self.schemaless()?;
        let source_offset = self.schemaless()?;
        let topic = self.topic()?;
        let partition = self.i32()?;
        let (key_schema, key) = self.keyed()?;
        let (value_schema, value) = self.keyed()?;
        let timestamp = self.i64()?;
        let n_headers = self.i32()?;
        if n_headers < 0 {
            return Err(Unsure);
        }
        let headers = if n_headers == 0 {
            None
        } else {
            let mut hs = Vec::with_capacity(n_headers as usize);
            for _ in 0..n_headers {
                let key = Str::new(self.string()?.ok_or(Unsure)?);
                let (schema, value) = self.keyed()?;
                hs.push(NHeader { key, schema, value });
            }
            Some(hs)
        };
        Ok((
            seq,
            NRecord {
                topic,
                partition: (partition >= 0).then_some(partition),
                key_schema,
                key,
                value_schema,
                value,
                timestamp: (timestamp != i64::MIN).then_some(timestamp),
                headers,
                meta: Meta::Source(SourceMeta { source_partition, source_offset }),
            },
        ))
    }
}

/// The records of a source batch's record section, which starts at `pos` of `data` (its u32
/// count first), given the task's schemas so far (`schemas`: id -> `Schema`, the schema section
/// already read into it): `(seqs, records)`, two lists in order; None when the reference
/// reader must read the section (see the module docs).
#[pyfunction]
pub fn host_source_records<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    pos: usize,
    schemas: &Bound<'py, PyDict>,
) -> PyResult<Option<(Py<PyList>, Py<PyList>)>> {
    let bytes = data.as_bytes();
    let mut reader = Reader { py, data: bytes, pos, schemas, known: HashMap::new(), last_topic: None };
    let records = match read_all(&mut reader) {
        Ok(r) => r,
        Err(Unsure) => return Ok(None),
    };
    let seqs = PyList::empty(py);
    let out = PyList::empty(py);
    for (seq, r) in &records {
        seqs.append(*seq)?;
        out.append(record_to_py(py, r)?.bind(py))?;
    }
    Ok(Some((seqs.unbind(), out.unbind())))
}

fn read_all(reader: &mut Reader<'_, '_>) -> R<Vec<(i64, NRecord)>> {
    let n = u32::from_be_bytes(reader.take(4)?.try_into().unwrap()) as usize;
    let mut records = Vec::with_capacity(n.min(65_536));
    for _ in 0..n {
        records.push(reader.record()?);
    }
    if reader.pos != reader.data.len() {
        return Err(Unsure);
    }
    Ok(records)
}
