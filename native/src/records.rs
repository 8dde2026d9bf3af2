//! SinkRecords of a consumed batch, built the way `SinkDelivery.convert`'s loop builds them.
//!
//! `sink_records(msgs, keys, values, topics, parts, offs, ts_types, no_ts_type)` returns the
//! records when every message of the batch converted (its key and value are `SchemaAndValue`s)
//! and has no headers; None otherwise, and the Python loop builds them (converting headers
//! through the retry operator, leaving out tolerated failures).

use crate::types;
use crate::util::{alloc, init_slot, Owned};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

#[allow(clippy::too_many_arguments)]
#[pyfunction]
pub fn sink_records<'py>(
    py: Python<'py>,
    msgs: Bound<'py, PyList>,
    keys: Bound<'py, PyList>,
    values: Bound<'py, PyList>,
    topics: Bound<'py, PyList>,
    parts: Bound<'py, PyList>,
    offs: Bound<'py, PyList>,
    ts_types: Bound<'py, PyTuple>,
    no_ts_type: Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let t = types::get().ok_or_else(|| PyValueError::new_err("kconnect_native.init not called"))?;
    let n = msgs.len();
    if keys.len() != n || values.len() != n || topics.len() != n || parts.len() != n || offs.len() != n {
        return Ok(None);
    }
    let headers_name = PyString::intern(py, "headers");
    let timestamp_name = PyString::intern(py, "timestamp");
    if ts_types.len() != 3 {
        return Ok(None);
    }
    unsafe {
        let out = Owned::new(ffi::PyList_New(n as isize)).ok_or_else(|| PyErr::fetch(py))?;
        let none = ffi::Py_None();
        for i in 0..n {
            let i_ = i as isize;
            let m = ffi::PyList_GET_ITEM(msgs.as_ptr(), i_);
            let k = ffi::PyList_GET_ITEM(keys.as_ptr(), i_);
            let v = ffi::PyList_GET_ITEM(values.as_ptr(), i_);
            if ffi::Py_TYPE(k) != t.sav_tp || ffi::Py_TYPE(v) != t.sav_tp {
                return Ok(None); // a skipped (tolerated) record
            }
            let h = Owned::new(ffi::PyObject_CallMethodNoArgs(m, headers_name.as_ptr()))
                .ok_or_else(|| PyErr::fetch(py))?;
            if ffi::PyObject_IsTrue(h.0) != 0 {
                crate::util::clear_error();
                return Ok(None); // headers go through the header converter, in Python
            }
            let ts = Owned::new(ffi::PyObject_CallMethodNoArgs(m, timestamp_name.as_ptr()))
                .ok_or_else(|| PyErr::fetch(py))?;
            if ffi::PyTuple_CheckExact(ts.0) == 0 || ffi::PyTuple_GET_SIZE(ts.0) != 2 {
                return Ok(None);
            }
            let ts_type = ffi::PyTuple_GET_ITEM(ts.0, 0);
            let ts_value = ffi::PyTuple_GET_ITEM(ts.0, 1);
            let code = ffi::PyLong_AsLong(ts_type);
            if code == -1 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return Ok(None);
            }
            let timestamp = if code != 0 { ts_value } else { none };
            let tstype = if (0..3).contains(&code) {
                ffi::PyTuple_GET_ITEM(ts_types.as_ptr(), code as isize)
            } else {
                no_ts_type.as_ptr()
            };
            let topic = ffi::PyList_GET_ITEM(topics.as_ptr(), i_);
            let part = ffi::PyList_GET_ITEM(parts.as_ptr(), i_);
            let off = ffi::PyList_GET_ITEM(offs.as_ptr(), i_);
            let r = alloc(t.sink_tp).ok_or_else(|| PyErr::fetch(py))?;
            // SinkRecord.__init__ with headers None and the original_* defaults
            init_slot(r.0, t.topic, topic);
            init_slot(r.0, t.kafka_partition, part);
            init_slot(r.0, t.key_schema, ffi::PyTuple_GET_ITEM(k, 0));
            init_slot(r.0, t.key, ffi::PyTuple_GET_ITEM(k, 1));
            init_slot(r.0, t.value_schema, ffi::PyTuple_GET_ITEM(v, 0));
            init_slot(r.0, t.value, ffi::PyTuple_GET_ITEM(v, 1));
            init_slot(r.0, t.timestamp, timestamp);
            init_slot(r.0, t.headers, none);
            init_slot(r.0, t.kafka_offset, off);
            init_slot(r.0, t.timestamp_type, tstype);
            init_slot(r.0, t.original_topic, topic);
            init_slot(r.0, t.original_kafka_partition, part);
            init_slot(r.0, t.original_kafka_offset, off);
            ffi::PyList_SET_ITEM(out.0, i_, r.into_ptr());
        }
        Ok(Some(Bound::from_owned_ptr(py, out.into_ptr()).cast_into::<PyList>().unwrap()))
    }
}
