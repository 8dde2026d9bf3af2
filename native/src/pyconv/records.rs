//! Whole records between the native model and kconnect's `SinkRecord` / `SourceRecord`.
//!
//! Records are made and read at the offsets of their `__slots__` (`crate::types`), as the
//! classes' own constructors fill them. `init_records` hands over, once, the Python objects a
//! record refers to that the native side cannot make: the three `TimestampType` members and
//! the `Header` / `Headers` classes.

use crate::model::pyobj::PyObj;
use crate::model::record::{Meta, NHeader, NRecord, SinkMeta, SourceMeta, Topic, TopicName};
use crate::model::schema::{NSchema, SchemaRef};
use crate::pyconv::from_py::{str_of, value_of_ptr};
use crate::pyconv::to_py::to_py;
use crate::types;
use crate::util::{alloc, init_slot_steal, slot};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::{Arc, OnceLock};

pub struct RecordTypes {
    /// TimestampType NO_TIMESTAMP_TYPE, CREATE_TIME, LOG_APPEND_TIME
    pub ts_types: [PyObj; 3],
    pub header_cls: PyObj,
    pub headers_cls: PyObj,
    /// offset of `Headers._headers`
    pub headers_list: isize,
}

static RECORD_TYPES: OnceLock<RecordTypes> = OnceLock::new();

pub fn record_types() -> PyResult<&'static RecordTypes> {
    RECORD_TYPES
        .get()
        .ok_or_else(|| PyValueError::new_err("kconnect_native.init_records not called"))
}

#[pyfunction]
pub fn init_records(
    ts_types: Bound<'_, PyTuple>,
    header_cls: Bound<'_, PyAny>,
    headers_cls: Bound<'_, PyAny>,
) -> PyResult<()> {
    if ts_types.len() != 3 {
        return Err(PyValueError::new_err("three timestamp types expected"));
    }
    let headers_list = unsafe { crate::util::member_offset(headers_cls.as_ptr(), "_headers") }
        .ok_or_else(|| PyValueError::new_err("Headers._headers is not a slot"))?;
    let _ = RECORD_TYPES.set(RecordTypes {
        ts_types: [
            PyObj::of(&ts_types.get_item(0)?),
            PyObj::of(&ts_types.get_item(1)?),
            PyObj::of(&ts_types.get_item(2)?),
        ],
        header_cls: PyObj::of(&header_cls),
        headers_cls: PyObj::of(&headers_cls),
        headers_list,
    });
    Ok(())
}

/// Topic names of a batch, each made once (records of a batch share a handful of topics).
#[derive(Default)]
pub struct Topics {
    last: Option<Topic>,
}

impl Topics {
    /// The topic of the Python str `p`; None when it is not a plain str.
    pub unsafe fn of_py(&mut self, p: *mut ffi::PyObject) -> Option<Topic> {
        if let Some(t) = &self.last {
            if t.py.as_ptr() == p {
                return Some(t.clone());
            }
        }
        let name = str_of(p)?;
        if let Some(t) = &self.last {
            if t.name == name {
                return Some(t.clone());
            }
        }
        let t = Arc::new(TopicName {
            name,
            py: PyObj::borrowed(p),
        });
        self.last = Some(t.clone());
        Some(t)
    }
}

fn fetch(py: Python<'_>) -> PyErr {
    PyErr::take(py).unwrap_or_else(|| PyValueError::new_err("object creation failed"))
}

unsafe fn opt_int(py: Python<'_>, v: Option<i64>) -> PyResult<PyObj> {
    match v {
        None => Ok(PyObj::none()),
        Some(n) => PyObj::steal(ffi::PyLong_FromLongLong(n)).ok_or_else(|| fetch(py)),
    }
}

fn opt_schema(s: &Option<SchemaRef>) -> PyObj {
    match s {
        None => PyObj::none(),
        Some(s) => s.py.clone(),
    }
}

/// A Python `Headers` of `headers`.
pub fn headers_to_py(py: Python<'_>, headers: &[NHeader]) -> PyResult<PyObj> {
    let rt = record_types()?;
    let list = PyList::empty(py);
    for h in headers {
        let key = unsafe { crate::pyconv::to_py::new_str(py, &h.key)? };
        let header = rt.header_cls.bind(py).call1((
            key.bind(py),
            opt_schema(&h.schema).bind(py),
            to_py(py, &h.value, h.schema.is_some(), h.schema.as_deref())?.bind(py),
        ))?;
        list.append(header)?;
    }
    Ok(PyObj::of(&rt.headers_cls.bind(py).call1((list,))?))
}

/// The Python `SinkRecord` / `SourceRecord` of `r`.
pub fn record_to_py(py: Python<'_>, r: &NRecord) -> PyResult<PyObj> {
    let t = types::get().ok_or_else(|| PyValueError::new_err("kconnect_native.init not called"))?;
    let rt = record_types()?;
    unsafe {
        let tp = match r.meta {
            Meta::Sink(_) => t.sink_tp,
            Meta::Source(_) => t.source_tp,
        };
        // every value is made before the record, so a failure leaves nothing half-built
        let key = to_py(py, &r.key, r.key_schema.is_some(), r.key_schema.as_deref())?;
        let value = to_py(py, &r.value, r.value_schema.is_some(), r.value_schema.as_deref())?;
        let headers = match &r.headers {
            Some(h) if !h.is_empty() => headers_to_py(py, h)?,
            _ => PyObj::none(),
        };
        let partition = opt_int(py, r.partition.map(|p| p as i64))?;
        let timestamp = opt_int(py, r.timestamp)?;
        let own: Vec<(isize, PyObj)> = match &r.meta {
            Meta::Sink(m) => vec![
                (t.kafka_offset, opt_int(py, Some(m.offset))?),
                (
                    t.timestamp_type,
                    rt.ts_types[(m.timestamp_type as usize).min(2)].clone(),
                ),
                (t.original_topic, m.original_topic.py.clone()),
                (
                    t.original_kafka_partition,
                    opt_int(py, Some(m.original_partition as i64))?,
                ),
                (t.original_kafka_offset, opt_int(py, Some(m.original_offset))?),
            ],
            Meta::Source(m) => vec![
                (t.source_partition, m.source_partition.clone()),
                (t.source_offset, m.source_offset.clone()),
            ],
        };
        let obj = alloc(tp).ok_or_else(|| fetch(py))?;
        let o = obj.0;
        init_slot_steal(o, t.topic, r.topic.py.new_ref());
        init_slot_steal(o, t.kafka_partition, partition.into_ptr());
        init_slot_steal(o, t.key_schema, opt_schema(&r.key_schema).into_ptr());
        init_slot_steal(o, t.key, key.into_ptr());
        init_slot_steal(o, t.value_schema, opt_schema(&r.value_schema).into_ptr());
        init_slot_steal(o, t.value, value.into_ptr());
        init_slot_steal(o, t.timestamp, timestamp.into_ptr());
        init_slot_steal(o, t.headers, headers.into_ptr());
        for (off, v) in own {
            init_slot_steal(o, off, v.into_ptr());
        }
        Ok(PyObj::steal(obj.into_ptr()).unwrap())
    }
}

unsafe fn int_slot(p: *mut ffi::PyObject) -> Option<Option<i64>> {
    if p.is_null() {
        return None;
    }
    if p == ffi::Py_None() {
        return Some(None);
    }
    if ffi::PyLong_CheckExact(p) == 0 {
        return None;
    }
    let mut overflow = 0;
    let v = ffi::PyLong_AsLongLongAndOverflow(p, &mut overflow);
    (overflow == 0).then_some(Some(v))
}

unsafe fn schema_slot(py: Python<'_>, p: *mut ffi::PyObject) -> Option<Option<SchemaRef>> {
    if p.is_null() {
        return None;
    }
    if p == ffi::Py_None() {
        return Some(None);
    }
    NSchema::of(&Bound::from_borrowed_ptr(py, p)).ok().map(Some)
}

/// Native headers of a Python `Headers` (None when it is not one).
pub unsafe fn headers_of_py(py: Python<'_>, p: *mut ffi::PyObject) -> Option<Vec<NHeader>> {
    let rt = record_types().ok()?;
    if ffi::Py_TYPE(p) as *mut ffi::PyObject != rt.headers_cls.as_ptr() {
        return None;
    }
    let list = slot(p, rt.headers_list);
    if list.is_null() || ffi::PyList_CheckExact(list) == 0 {
        return None;
    }
    let n = ffi::PyList_GET_SIZE(list);
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let h = ffi::PyList_GET_ITEM(list, i);
        if ffi::PyTuple_Check(h) == 0 || ffi::PyTuple_GET_SIZE(h) != 3 {
            return None;
        }
        let key = str_of(ffi::PyTuple_GET_ITEM(h, 0))?;
        let schema = schema_slot(py, ffi::PyTuple_GET_ITEM(h, 1))?;
        let value = value_of_ptr(py, ffi::PyTuple_GET_ITEM(h, 2), schema.as_ref());
        out.push(NHeader { key, schema, value });
    }
    Some(out)
}

/// The native record of a Python `SinkRecord` / `SourceRecord` (None for anything else: a
/// subclass, a field of an unexpected class).
pub unsafe fn record_of_py(py: Python<'_>, p: *mut ffi::PyObject, topics: &mut Topics) -> Option<NRecord> {
    let t = types::get()?;
    let tp = ffi::Py_TYPE(p);
    if tp != t.sink_tp && tp != t.source_tp {
        return None;
    }
    let topic = topics.of_py(slot(p, t.topic))?;
    let partition = match int_slot(slot(p, t.kafka_partition))? {
        None => None,
        Some(v) => Some(i32::try_from(v).ok()?),
    };
    let key_schema = schema_slot(py, slot(p, t.key_schema))?;
    let value_schema = schema_slot(py, slot(p, t.value_schema))?;
    let key = value_of_ptr(py, slot(p, t.key), key_schema.as_ref());
    let value = value_of_ptr(py, slot(p, t.value), value_schema.as_ref());
    let timestamp = int_slot(slot(p, t.timestamp))?;
    let h = slot(p, t.headers);
    let headers = if h.is_null() || h == ffi::Py_None() {
        None
    } else {
        Some(headers_of_py(py, h)?)
    };
    let meta = if tp == t.sink_tp {
        let rt = record_types().ok()?;
        let ts_type = slot(p, t.timestamp_type);
        let timestamp_type = rt.ts_types.iter().position(|x| x.as_ptr() == ts_type)? as u8;
        let orig_topic_p = slot(p, t.original_topic);
        let original_topic = if orig_topic_p == slot(p, t.topic) {
            topic.clone()
        } else {
            Arc::new(TopicName {
                name: str_of(orig_topic_p)?,
                py: PyObj::borrowed(orig_topic_p),
            })
        };
        Meta::Sink(SinkMeta {
            offset: int_slot(slot(p, t.kafka_offset))??,
            timestamp_type,
            original_topic,
            original_partition: i32::try_from(int_slot(slot(p, t.original_kafka_partition))??).ok()?,
            original_offset: int_slot(slot(p, t.original_kafka_offset))??,
        })
    } else {
        let (sp, so) = (slot(p, t.source_partition), slot(p, t.source_offset));
        if sp.is_null() || so.is_null() {
            return None;
        }
        Meta::Source(SourceMeta {
            source_partition: PyObj::borrowed(sp),
            source_offset: PyObj::borrowed(so),
        })
    };
    Some(NRecord {
        topic,
        partition,
        key_schema,
        key,
        value_schema,
        value,
        timestamp,
        headers,
        meta,
    })
}
