//! Native values to kconnect's Python data model (what a Python plugin sees).
//!
//! The objects are the ones the pure-Python path makes: `int`, `float`, `str`, `bytes`,
//! `decimal.Decimal` (with the value's own exponent), `datetime.date` / `datetime.time` /
//! UTC `datetime.datetime`, `list`, `dict` (in the map's order; a list of `(key, value)` pairs
//! when a key is a struct, list or map, which Python cannot hash) and `Struct`.

use crate::model::pyobj::PyObj;
use crate::model::schema::{NSchema, Ty};
use crate::model::value::{Bytes, Dec, Value};
use crate::pyconv::civil;
use crate::types;
use crate::util::{alloc, init_slot, init_slot_steal};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDate, PyDateTime, PyTime, PyTzInfo, PyType};

const MS_PER_DAY: i64 = 86_400_000;

fn fetch(py: Python<'_>) -> PyErr {
    PyErr::take(py).unwrap_or_else(|| PyValueError::new_err("object creation failed"))
}

/// A Python str of UTF-8 `s`.
#[inline]
pub unsafe fn new_str(py: Python<'_>, s: &str) -> PyResult<PyObj> {
    let b = s.as_bytes();
    let p = if b.is_ascii() {
        let o = ffi::PyUnicode_New(b.len() as ffi::Py_ssize_t, 127);
        if !o.is_null() {
            std::ptr::copy_nonoverlapping(b.as_ptr(), ffi::PyUnicode_DATA(o) as *mut u8, b.len());
        }
        o
    } else {
        ffi::PyUnicode_DecodeUTF8(
            b.as_ptr() as *const std::ffi::c_char,
            b.len() as ffi::Py_ssize_t,
            std::ptr::null(),
        )
    };
    PyObj::steal(p).ok_or_else(|| fetch(py))
}

fn decimal_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static DECIMAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    DECIMAL.import(py, "decimal", "Decimal")
}

/// `decimal.Decimal` with exactly this unscaled value and exponent `-scale`.
pub fn new_decimal(py: Python<'_>, d: &Dec) -> PyResult<PyObj> {
    let text = format!("{}E{}", d.unscaled, -(d.scale as i64));
    Ok(PyObj::of(&decimal_class(py)?.call1((text,))?))
}

pub fn new_date(py: Python<'_>, days: i32) -> PyResult<PyObj> {
    let (y, m, d) = civil::from_days(days as i64);
    Ok(PyObj::of(PyDate::new(py, y as i32, m as u8, d as u8)?.as_any()))
}

pub fn new_time(py: Python<'_>, ms: i32) -> PyResult<PyObj> {
    let ms = (ms as i64).rem_euclid(MS_PER_DAY);
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    Ok(PyObj::of(
        PyTime::new(py, h as u8, m as u8, s as u8, (milli * 1000) as u32, None)?.as_any(),
    ))
}

pub fn new_timestamp(py: Python<'_>, ms: i64) -> PyResult<PyObj> {
    let days = ms.div_euclid(MS_PER_DAY);
    let rest = ms.rem_euclid(MS_PER_DAY);
    let (y, mo, d) = civil::from_days(days);
    let (h, rest) = (rest / 3_600_000, rest % 3_600_000);
    let (mi, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    let utc = PyTzInfo::utc(py)?;
    Ok(PyObj::of(
        PyDateTime::new(
            py,
            y as i32,
            mo as u8,
            d as u8,
            h as u8,
            mi as u8,
            s as u8,
            (milli * 1000) as u32,
            Some(&utc),
        )?
        .as_any(),
    ))
}

fn byte_buffer_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static BYTE_BUFFER: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    BYTE_BUFFER.import(py, "kconnect.api.data.java_strings", "ByteBuffer")
}

fn float32_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static FLOAT32: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    FLOAT32.import(py, "kconnect.api.data.java_strings", "Float32")
}

/// The Python object for `v`; `typed`: a schema says what `v` is (else a FLOAT32 becomes the
/// reference's `Float32`, Java's `Float` in schemaless data); `schema`: that schema, when
/// known (a MAP whose keys are structs, arrays or maps is a list of pairs in kconnect's data
/// model, even when empty; without the schema, when a key is one).
pub fn to_py(py: Python<'_>, v: &Value, typed: bool, schema: Option<&NSchema>) -> PyResult<PyObj> {
    unsafe {
        Ok(match v {
            Value::Null => PyObj::none(),
            Value::Bool(b) => PyObj::borrowed(if *b { ffi::Py_True() } else { ffi::Py_False() }),
            Value::I8(x) => long(py, *x as i64)?,
            Value::I16(x) => long(py, *x as i64)?,
            Value::I32(x) => long(py, *x as i64)?,
            Value::I64(x) => long(py, *x)?,
            Value::F32(x) if !typed => PyObj::of(&float32_class(py)?.call1((*x as f64,))?),
            Value::F32(x) => PyObj::steal(ffi::PyFloat_FromDouble(*x as f64)).ok_or_else(|| fetch(py))?,
            Value::F64(x) => PyObj::steal(ffi::PyFloat_FromDouble(*x)).ok_or_else(|| fetch(py))?,
            Value::Str(s) => new_str(py, s)?,
            Value::Bytes(Bytes::Py(o)) => o.clone(),
            Value::Bytes(Bytes::Buffer(b)) => PyObj::of(&byte_buffer_class(py)?.call1((pyo3::types::PyBytes::new(py, b),))?),
            Value::Bytes(b) => PyObj::steal(ffi::PyBytes_FromStringAndSize(
                b.as_ptr() as *const std::ffi::c_char,
                b.len() as ffi::Py_ssize_t,
            ))
            .ok_or_else(|| fetch(py))?,
            Value::Decimal(d) => new_decimal(py, d)?,
            Value::Date(days) => new_date(py, *days)?,
            Value::Time(ms) => new_time(py, *ms)?,
            Value::Timestamp(ms) => new_timestamp(py, *ms)?,
            Value::Array(items) => list_of(py, items, typed, schema.and_then(|s| s.value.as_deref()))?,
            Value::Map(entries) => {
                let (ks, vs) = match schema {
                    Some(s) => (s.key.as_deref(), s.value.as_deref()),
                    None => (None, None),
                };
                let hashable = match ks {
                    Some(k) => !matches!(k.ty, Ty::Struct | Ty::Array | Ty::Map),
                    None => entries.iter().all(|(k, _)| {
                        !matches!(k, Value::Struct(_) | Value::Array(_) | Value::Map(_))
                    }),
                };
                if hashable {
                    let d = PyObj::steal(ffi::PyDict_New()).ok_or_else(|| fetch(py))?;
                    for (k, x) in entries {
                        let k = to_py(py, k, typed, ks)?;
                        let x = to_py(py, x, typed, vs)?;
                        if ffi::PyDict_SetItem(d.as_ptr(), k.as_ptr(), x.as_ptr()) != 0 {
                            return Err(fetch(py));
                        }
                    }
                    d
                } else {
                    let l = PyObj::steal(ffi::PyList_New(entries.len() as ffi::Py_ssize_t))
                        .ok_or_else(|| fetch(py))?;
                    for (i, (k, x)) in entries.iter().enumerate() {
                        let t = PyObj::steal(ffi::PyTuple_New(2)).ok_or_else(|| fetch(py))?;
                        ffi::PyTuple_SET_ITEM(t.as_ptr(), 0, to_py(py, k, typed, ks)?.into_ptr());
                        ffi::PyTuple_SET_ITEM(t.as_ptr(), 1, to_py(py, x, typed, vs)?.into_ptr());
                        ffi::PyList_SET_ITEM(l.as_ptr(), i as ffi::Py_ssize_t, t.into_ptr());
                    }
                    l
                }
            }
            Value::Struct(s) => {
                let t = types::get()
                    .ok_or_else(|| PyValueError::new_err("kconnect_native.init not called"))?;
                let l = PyObj::steal(ffi::PyList_New(s.values.len() as ffi::Py_ssize_t))
                    .ok_or_else(|| fetch(py))?;
                for (i, (x, f)) in s.values.iter().zip(&s.schema.fields).enumerate() {
                    let x = to_py(py, x, true, Some(&f.schema))?;
                    ffi::PyList_SET_ITEM(l.as_ptr(), i as ffi::Py_ssize_t, x.into_ptr());
                }
                let values = l;
                let obj = alloc(t.struct_tp).ok_or_else(|| fetch(py))?;
                init_slot(obj.0, t.struct_schema, s.schema.py.as_ptr());
                init_slot_steal(obj.0, t.struct_values, values.into_ptr());
                PyObj::steal(obj.into_ptr()).unwrap()
            }
            Value::Py(o) => o.clone(),
        })
    }
}

#[inline]
unsafe fn long(py: Python<'_>, x: i64) -> PyResult<PyObj> {
    PyObj::steal(ffi::PyLong_FromLongLong(x)).ok_or_else(|| fetch(py))
}

unsafe fn list_of(py: Python<'_>, items: &[Value], typed: bool, item: Option<&NSchema>) -> PyResult<PyObj> {
    let l = PyObj::steal(ffi::PyList_New(items.len() as ffi::Py_ssize_t)).ok_or_else(|| fetch(py))?;
    for (i, x) in items.iter().enumerate() {
        // a list left part-filled by an error is freed safely (its empty items are null)
        ffi::PyList_SET_ITEM(l.as_ptr(), i as ffi::Py_ssize_t, to_py(py, x, typed, item)?.into_ptr());
    }
    Ok(l)
}
