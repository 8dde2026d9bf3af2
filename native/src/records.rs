//! SinkRecords of a consumed batch, built the way `SinkDelivery.convert`'s loop builds them.
//!
//! `message_columns(msgs)` returns the batch's topics, keys, values, partitions and offsets,
//! what `convert`'s list comprehensions take from the messages, in one pass.
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
    if keys.len() != n
        || values.len() != n
        || topics.len() != n
        || parts.len() != n
        || offs.len() != n
    {
        return Ok(None);
    }
    if ts_types.len() != 3 {
        return Ok(None);
    }
    if n == 0 {
        return Ok(Some(PyList::empty(py)));
    }
    unsafe {
        // The messages' own C methods, called directly as `message_columns` does (one type
        // for the whole batch, else the Python loop builds the records).
        let tp = ffi::Py_TYPE(ffi::PyList_GET_ITEM(msgs.as_ptr(), 0));
        let (Some(headers_of), Some(timestamp_of)) =
            (noargs_method(tp, "headers"), noargs_method(tp, "timestamp"))
        else {
            return Ok(None);
        };
        let out = Owned::new(ffi::PyList_New(n as isize)).ok_or_else(|| PyErr::fetch(py))?;
        let none = ffi::Py_None();
        for i in 0..n {
            let i_ = i as isize;
            let m = ffi::PyList_GET_ITEM(msgs.as_ptr(), i_);
            let k = ffi::PyList_GET_ITEM(keys.as_ptr(), i_);
            let v = ffi::PyList_GET_ITEM(values.as_ptr(), i_);
            if ffi::Py_TYPE(k) != t.sav_tp || ffi::Py_TYPE(v) != t.sav_tp || ffi::Py_TYPE(m) != tp {
                return Ok(None); // a skipped (tolerated) record, or a message of another type
            }
            let h =
                Owned::new(headers_of(m, std::ptr::null_mut())).ok_or_else(|| PyErr::fetch(py))?;
            let has_headers = ffi::PyObject_IsTrue(h.0);
            if has_headers != 0 {
                if has_headers < 0 {
                    crate::util::clear_error();
                }
                return Ok(None); // headers go through the header converter, in Python
            }
            let ts = Owned::new(timestamp_of(m, std::ptr::null_mut()))
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
        Ok(Some(
            Bound::from_owned_ptr(py, out.into_ptr())
                .cast_into::<PyList>()
                .unwrap(),
        ))
    }
}

/// The rows of the JDBC sink for `records` (SinkRecords), one tuple per record with a column
/// per entry of `sources`: `(0, _)` topic, `(1, _)` partition, `(2, _)` offset, `(3, name)` a
/// field of the value (a Struct, or a dict when `schemaless`), `(4, name)` a field of the key
/// (a Struct or a dict), `(5, _)` the key itself, `(6, name)` the field of a Struct or dict key
/// or else the key itself (the one key column of pk.mode=record_key). A field never put is
/// None, as the Python row
/// functions give it. None when a record does not fit (another class, a value of another
/// type): then the Python row function makes every row.
#[pyfunction]
pub fn sink_rows<'py>(
    py: Python<'py>,
    records: Bound<'py, PyList>,
    sources: Vec<(u8, Option<String>)>,
    schemaless: bool,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let t = types::get().ok_or_else(|| PyValueError::new_err("kconnect_native.init not called"))?;
    let cols: Vec<(u8, Option<Bound<'py, PyString>>)> = sources
        .into_iter()
        .map(|(k, n)| (k, n.map(|n| PyString::intern(py, &n))))
        .collect();
    if cols
        .iter()
        .any(|(k, n)| *k > 6 || ((*k == 3 || *k == 4 || *k == 6) && n.is_none()))
    {
        return Ok(None);
    }
    let n = records.len();
    // per column: the Struct schema last seen and the column's index in its values
    let mut at: Vec<(*mut ffi::PyObject, usize)> = vec![(std::ptr::null_mut(), 0); cols.len()];
    unsafe {
        let out = Owned::new(ffi::PyList_New(n as isize)).ok_or_else(|| PyErr::fetch(py))?;
        for i in 0..n {
            let r = ffi::PyList_GET_ITEM(records.as_ptr(), i as isize);
            if ffi::Py_TYPE(r) != t.sink_tp {
                return Ok(None);
            }
            let row = Owned::new(ffi::PyTuple_New(cols.len() as isize))
                .ok_or_else(|| PyErr::fetch(py))?;
            for (j, (kind, name)) in cols.iter().enumerate() {
                let v: *mut ffi::PyObject = match kind {
                    0 => crate::util::slot(r, t.topic),
                    1 => crate::util::slot(r, t.kafka_partition),
                    2 => crate::util::slot(r, t.kafka_offset),
                    5 => crate::util::slot(r, t.key),
                    _ => {
                        let holder = crate::util::slot(r, if *kind == 3 { t.value } else { t.key });
                        if holder.is_null() {
                            return Ok(None);
                        }
                        let name = name.as_ref().unwrap().as_ptr();
                        let dict = if ffi::Py_TYPE(holder) == t.struct_tp {
                            // a Struct's values: a list in its schema's field order
                            let schema = crate::util::slot(holder, t.struct_schema);
                            if at[j].0 != schema {
                                let Some(index) = crate::util::field_index(schema, name) else {
                                    return Ok(None);
                                };
                                at[j] = (schema, index);
                            }
                            let values = crate::util::slot(holder, t.struct_values);
                            if values.is_null()
                                || ffi::PyList_CheckExact(values) == 0
                                || ffi::PyList_GET_SIZE(values) as usize <= at[j].1
                            {
                                return Ok(None);
                            }
                            let x = ffi::PyList_GET_ITEM(values, at[j].1 as isize);
                            ffi::Py_INCREF(x);
                            ffi::PyTuple_SET_ITEM(row.0, j as isize, x);
                            continue;
                        } else if ffi::PyDict_CheckExact(holder) != 0 && (*kind != 3 || schemaless)
                        {
                            holder
                        } else if *kind == 6
                            && ffi::PyDict_Check(holder) == 0
                            && ffi::PyObject_TypeCheck(holder, t.struct_tp) == 0
                        {
                            // a key that is neither a struct nor a map is the key column itself
                            ffi::Py_INCREF(holder);
                            ffi::PyTuple_SET_ITEM(row.0, j as isize, holder);
                            continue;
                        } else {
                            return Ok(None);
                        };
                        if dict.is_null() || ffi::PyDict_CheckExact(dict) == 0 {
                            return Ok(None);
                        }
                        let x = ffi::PyDict_GetItemWithError(dict, name);
                        if x.is_null() {
                            if !ffi::PyErr_Occurred().is_null() {
                                return Err(PyErr::fetch(py));
                            }
                            ffi::Py_None()
                        } else {
                            x
                        }
                    }
                };
                if v.is_null() {
                    return Ok(None);
                }
                ffi::Py_INCREF(v);
                ffi::PyTuple_SET_ITEM(row.0, j as isize, v);
            }
            ffi::PyList_SET_ITEM(out.0, i as isize, row.into_ptr());
        }
        Ok(Some(
            Bound::from_owned_ptr(py, out.into_ptr())
                .cast_into::<PyList>()
                .unwrap(),
        ))
    }
}

/// A no-argument C method of `tp` or a base (`tp.<name>`, a method descriptor with `METH_NOARGS`), to
/// call without the method lookup and call protocol per message; None when it is anything else.
pub(crate) unsafe fn noargs_method(tp: *mut ffi::PyTypeObject, name: &str) -> Option<ffi::PyCFunction> {
    let cname = std::ffi::CString::new(name).ok()?;
    let descr = Owned::new(ffi::PyObject_GetAttrString(
        tp as *mut ffi::PyObject,
        cname.as_ptr(),
    ));
    let Some(descr) = descr else {
        crate::util::clear_error();
        return None;
    };
    if ffi::Py_TYPE(descr.0) != std::ptr::addr_of_mut!(ffi::PyMethodDescr_Type) {
        return None;
    }
    let d = descr.0 as *mut ffi::PyMethodDescrObject;
    // found on `tp` itself or inherited from a base (a subclass that redefines the method in
    // Python finds a function, not this descriptor)
    if ffi::PyType_IsSubtype(tp, (*d).d_common.d_type) == 0 {
        return None;
    }
    let def = (*d).d_method;
    if def.is_null() || (*def).ml_flags != ffi::METH_NOARGS {
        return None;
    }
    // the type (a static type of the consumer's extension module) keeps the method alive
    Some((*def).ml_meth.PyCFunction)
}

/// The columns `SinkDelivery.convert` takes from a consumed batch, in one pass: `(topics,
/// keys, values, partitions, offsets)`, each what the message's method of that name returns,
/// as `[m.topic() for m in msgs]` and so on. None when the messages are not all of one type
/// whose methods are plain no-argument C methods (then the Python comprehensions run).
#[pyfunction]
pub fn message_columns<'py>(
    py: Python<'py>,
    msgs: Bound<'py, PyList>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let n = msgs.len();
    if n == 0 {
        return Ok(None);
    }
    unsafe {
        let tp = ffi::Py_TYPE(ffi::PyList_GET_ITEM(msgs.as_ptr(), 0));
        let mut methods = Vec::with_capacity(5);
        for name in ["topic", "key", "value", "partition", "offset"] {
            match noargs_method(tp, name) {
                Some(f) => methods.push(f),
                None => return Ok(None),
            }
        }
        let mut cols = Vec::with_capacity(5);
        for _ in 0..5 {
            cols.push(Owned::new(ffi::PyList_New(n as isize)).ok_or_else(|| PyErr::fetch(py))?);
        }
        for i in 0..n {
            let m = ffi::PyList_GET_ITEM(msgs.as_ptr(), i as isize);
            if ffi::Py_TYPE(m) != tp {
                return Ok(None);
            }
            for (f, col) in methods.iter().zip(cols.iter()) {
                let v = f(m, std::ptr::null_mut());
                if v.is_null() {
                    return Err(PyErr::fetch(py));
                }
                ffi::PyList_SET_ITEM(col.0, i as isize, v);
            }
        }
        let out = Owned::new(ffi::PyTuple_New(5)).ok_or_else(|| PyErr::fetch(py))?;
        for (j, col) in cols.into_iter().enumerate() {
            ffi::PyTuple_SET_ITEM(out.0, j as isize, col.into_ptr());
        }
        Ok(Some(
            Bound::from_owned_ptr(py, out.into_ptr())
                .cast_into::<PyTuple>()
                .unwrap(),
        ))
    }
}

/// The records of `records[start..end]` as the exact SinkRecord class, or None (a list
/// holding only SinkRecords is what the sink runtime hands a task; anything else, such as a
/// subclass that might redefine a field, is left to the Python loop).
unsafe fn sink_record_at(
    t: &types::Types,
    list: *mut ffi::PyObject,
    i: usize,
) -> Option<*mut ffi::PyObject> {
    let r = ffi::PyList_GET_ITEM(list, i as isize);
    (ffi::Py_TYPE(r) == t.sink_tp).then_some(r)
}

/// The end of the run of records from `start` whose topic equals `records[start].topic`
/// (the first index past `start` with another topic, or the length): what
/// `JdbcDbWriter.write`'s loop finds. None when `records` is not a list of SinkRecords or
/// `start` is out of range (then the Python loop does it).
#[pyfunction]
pub fn topic_run_end(records: Bound<'_, PyAny>, start: usize) -> PyResult<Option<usize>> {
    let Some(t) = types::get() else {
        return Ok(None);
    };
    let Ok(list) = records.cast::<PyList>() else {
        return Ok(None);
    };
    let n = list.len();
    if start >= n {
        return Ok(None);
    }
    unsafe {
        let l = list.as_ptr();
        let Some(first) = sink_record_at(t, l, start) else {
            return Ok(None);
        };
        let topic = crate::util::slot(first, t.topic);
        if topic.is_null() {
            return Ok(None);
        }
        let mut end = start + 1;
        while end < n {
            let Some(r) = sink_record_at(t, l, end) else {
                return Ok(None);
            };
            let other = crate::util::slot(r, t.topic);
            if other.is_null() {
                return Ok(None);
            }
            if other != topic {
                match ffi::PyObject_RichCompareBool(other, topic, ffi::Py_EQ) {
                    1 => {}
                    0 => break,
                    _ => return Err(PyErr::fetch(records.py())),
                }
            }
            end += 1;
        }
        Ok(Some(end))
    }
}

/// The first index in `start..end` whose record does not have exactly these schema objects
/// (`is`, not equality) or whose value is None, or `end`: the run `BufferedRecords.add_all`
/// appends in one slice. None when `records` is not a list of SinkRecords or the range is
/// not inside it (then the Python loop does it).
#[pyfunction]
pub fn schema_run_end(
    records: Bound<'_, PyAny>,
    start: usize,
    end: usize,
    key_schema: Bound<'_, PyAny>,
    value_schema: Bound<'_, PyAny>,
) -> Option<usize> {
    let t = types::get()?;
    let list = records.cast::<PyList>().ok()?;
    if start > end || end > list.len() {
        return None;
    }
    let (ks, vs) = (key_schema.as_ptr(), value_schema.as_ptr());
    unsafe {
        let l = list.as_ptr();
        for j in start..end {
            let r = sink_record_at(t, l, j)?;
            let (k, v, value) = (
                crate::util::slot(r, t.key_schema),
                crate::util::slot(r, t.value_schema),
                crate::util::slot(r, t.value),
            );
            if k.is_null() || v.is_null() || value.is_null() {
                return None;
            }
            if v != vs || k != ks || value == ffi::Py_None() {
                return Some(j);
            }
        }
    }
    Some(end)
}
