//! kconnect's Python data model to native values (records a Python task or SMT made).
//!
//! Exactness first: a Python value becomes a native one only when turning it back into Python
//! gives an equal object of the same class (an int in its field's range, a float32 field's
//! float that is a float32, a UTC datetime in whole milliseconds...). Anything else -- a value
//! that does not match its schema, a naive datetime, a subclass, a number beyond 128 bits --
//! is kept as `Value::Py`, and whatever meets it later hands the record to the Python path,
//! which raises or converts exactly as before.

use crate::model::pyobj::PyObj;
use crate::model::schema::{Logical, NSchema, SchemaRef, Ty};
use crate::model::value::{Bytes, Dec, Str, StructVal, Value};
use std::sync::Arc;
use crate::pyconv::civil;
use crate::types;
use crate::util::slot;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyDate, PyDateAccess, PyDateTime, PyTime, PyTimeAccess, PyTuple, PyType, PyTzInfo,
    PyTzInfoAccess,
};

fn decimal_type(py: Python<'_>) -> Option<*mut ffi::PyTypeObject> {
    static DECIMAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    DECIMAL
        .import(py, "decimal", "Decimal")
        .ok()
        .map(|t| t.as_type_ptr())
}

fn byte_buffer_type(py: Python<'_>) -> Option<*mut ffi::PyTypeObject> {
    static BYTE_BUFFER: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    BYTE_BUFFER
        .import(py, "kconnect.api.data.java_strings", "ByteBuffer")
        .ok()
        .map(|t| t.as_type_ptr())
}

fn float32_type(py: Python<'_>) -> Option<*mut ffi::PyTypeObject> {
    static FLOAT32: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    FLOAT32
        .import(py, "kconnect.api.data.java_strings", "Float32")
        .ok()
        .map(|t| t.as_type_ptr())
}

/// The native value of the Python object `obj` (of `schema`, when known).
pub fn value_of(obj: &Bound<'_, PyAny>, schema: Option<&SchemaRef>) -> Value {
    unsafe { value_of_ptr(obj.py(), obj.as_ptr(), schema) }
}

#[inline]
unsafe fn py(p: *mut ffi::PyObject) -> Value {
    Value::Py(PyObj::borrowed(p))
}

/// The UTF-8 of a str (None for lone surrogates or a subclass).
#[inline]
pub unsafe fn str_of(p: *mut ffi::PyObject) -> Option<Str> {
    if ffi::PyUnicode_CheckExact(p) == 0 {
        return None;
    }
    let mut len: ffi::Py_ssize_t = 0;
    let data = ffi::PyUnicode_AsUTF8AndSize(p, &mut len);
    if data.is_null() {
        ffi::PyErr_Clear();
        return None;
    }
    let b = std::slice::from_raw_parts(data as *const u8, len as usize);
    Some(Str::new(std::str::from_utf8_unchecked(b)))
}

pub unsafe fn value_of_ptr(
    py_: Python<'_>,
    p: *mut ffi::PyObject,
    schema: Option<&SchemaRef>,
) -> Value {
    if p == ffi::Py_None() {
        return Value::Null;
    }
    match schema {
        Some(s) => typed(py_, p, s),
        None => untyped(py_, p),
    }
}

unsafe fn typed(py_: Python<'_>, p: *mut ffi::PyObject, s: &SchemaRef) -> Value {
    match s.logical {
        Logical::Decimal(_) => return decimal(py_, p).unwrap_or_else(|| py(p)),
        Logical::Date => return date(py_, p).unwrap_or_else(|| py(p)),
        Logical::Time => return time(py_, p).unwrap_or_else(|| py(p)),
        Logical::Timestamp => return timestamp(py_, p).unwrap_or_else(|| py(p)),
        Logical::None => {}
    }
    match s.ty {
        Ty::Int8 | Ty::Int16 | Ty::Int32 | Ty::Int64 => {
            if ffi::PyLong_CheckExact(p) == 0 {
                return py(p);
            }
            let mut overflow = 0;
            let v = ffi::PyLong_AsLongLongAndOverflow(p, &mut overflow);
            let (lo, hi) = s.ty.int_range().unwrap();
            if overflow != 0 || v < lo || v > hi {
                return py(p);
            }
            match s.ty {
                Ty::Int8 => Value::I8(v as i8),
                Ty::Int16 => Value::I16(v as i16),
                Ty::Int32 => Value::I32(v as i32),
                _ => Value::I64(v),
            }
        }
        Ty::Float32 => {
            if ffi::PyFloat_CheckExact(p) == 0 {
                return py(p);
            }
            let f = ffi::PyFloat_AS_DOUBLE(p);
            let g = f as f32;
            if (g as f64).to_bits() == f.to_bits() || (f.is_nan() && g.is_nan()) {
                Value::F32(g)
            } else {
                py(p)
            }
        }
        Ty::Float64 => {
            if ffi::PyFloat_CheckExact(p) == 0 {
                return py(p);
            }
            Value::F64(ffi::PyFloat_AS_DOUBLE(p))
        }
        Ty::Boolean => {
            if p == ffi::Py_True() {
                Value::Bool(true)
            } else if p == ffi::Py_False() {
                Value::Bool(false)
            } else {
                py(p)
            }
        }
        Ty::String => str_of(p).map(Value::Str).unwrap_or_else(|| py(p)),
        Ty::Bytes => bytes(py_, p).unwrap_or_else(|| py(p)),
        Ty::Array => {
            if ffi::PyList_CheckExact(p) == 0 {
                return py(p);
            }
            let item = s.value.as_ref();
            let n = ffi::PyList_GET_SIZE(p);
            let mut out = Vec::with_capacity(n as usize);
            for i in 0..n {
                out.push(value_of_ptr(py_, ffi::PyList_GET_ITEM(p, i), item));
            }
            Value::Array(out)
        }
        Ty::Map => map(py_, p, s.key.as_ref(), s.value.as_ref()),
        Ty::Struct => structv(py_, p).unwrap_or_else(|| py(p)),
    }
}

unsafe fn untyped(py_: Python<'_>, p: *mut ffi::PyObject) -> Value {
    if p == ffi::Py_True() {
        return Value::Bool(true);
    }
    if p == ffi::Py_False() {
        return Value::Bool(false);
    }
    if ffi::PyLong_CheckExact(p) != 0 {
        let mut overflow = 0;
        let v = ffi::PyLong_AsLongLongAndOverflow(p, &mut overflow);
        return if overflow != 0 { py(p) } else { Value::I64(v) };
    }
    if ffi::PyFloat_CheckExact(p) != 0 {
        return Value::F64(ffi::PyFloat_AS_DOUBLE(p));
    }
    if let Some(tp) = float32_type(py_) {
        if ffi::Py_TYPE(p) == tp {
            return Value::F32(ffi::PyFloat_AS_DOUBLE(p) as f32);
        }
    }
    if ffi::PyUnicode_CheckExact(p) != 0 {
        return str_of(p).map(Value::Str).unwrap_or_else(|| py(p));
    }
    if ffi::PyList_CheckExact(p) != 0 {
        let n = ffi::PyList_GET_SIZE(p);
        let mut out = Vec::with_capacity(n as usize);
        for i in 0..n {
            out.push(untyped_or_null(py_, ffi::PyList_GET_ITEM(p, i)));
        }
        return Value::Array(out);
    }
    if ffi::PyDict_CheckExact(p) != 0 {
        return map(py_, p, None, None);
    }
    if ffi::PyBytes_Check(p) != 0 {
        return bytes(py_, p).unwrap_or_else(|| py(p));
    }
    if let Some(t) = types::get() {
        if ffi::Py_TYPE(p) == t.struct_tp {
            return structv(py_, p).unwrap_or_else(|| py(p));
        }
    }
    if let Some(v) = decimal(py_, p) {
        return v;
    }
    if let Some(v) = timestamp(py_, p) {
        return v;
    }
    if let Some(v) = date(py_, p) {
        return v;
    }
    if let Some(v) = time(py_, p) {
        return v;
    }
    py(p)
}

#[inline]
unsafe fn untyped_or_null(py_: Python<'_>, p: *mut ffi::PyObject) -> Value {
    if p == ffi::Py_None() {
        Value::Null
    } else {
        untyped(py_, p)
    }
}

/// An exact `bytes` (held, not copied) or the reference's `ByteBuffer` (copied); None for
/// anything else.
unsafe fn bytes(py_: Python<'_>, p: *mut ffi::PyObject) -> Option<Value> {
    if ffi::PyBytes_CheckExact(p) != 0 {
        return Some(Value::Bytes(Bytes::Py(PyObj::borrowed(p))));
    }
    if ffi::PyBytes_Check(p) != 0 && Some(ffi::Py_TYPE(p)) == byte_buffer_type(py_) {
        let data = std::slice::from_raw_parts(ffi::PyBytes_AS_STRING(p) as *const u8, ffi::Py_SIZE(p) as usize);
        return Some(Value::Bytes(Bytes::Buffer(Arc::from(data))));
    }
    None
}

unsafe fn map(
    py_: Python<'_>,
    p: *mut ffi::PyObject,
    ks: Option<&SchemaRef>,
    vs: Option<&SchemaRef>,
) -> Value {
    if ffi::PyDict_CheckExact(p) != 0 {
        let mut pos: ffi::Py_ssize_t = 0;
        let mut k: *mut ffi::PyObject = std::ptr::null_mut();
        let mut x: *mut ffi::PyObject = std::ptr::null_mut();
        let mut out = Vec::with_capacity(ffi::PyDict_Size(p) as usize);
        while ffi::PyDict_Next(p, &mut pos, &mut k, &mut x) != 0 {
            out.push((value_of_ptr(py_, k, ks), value_of_ptr(py_, x, vs)));
        }
        return Value::Map(out);
    }
    // a map whose keys Python cannot hash travels as a list of (key, value) pairs
    if ks.is_some() && ffi::PyList_CheckExact(p) != 0 {
        let n = ffi::PyList_GET_SIZE(p);
        let mut out = Vec::with_capacity(n as usize);
        for i in 0..n {
            let e = ffi::PyList_GET_ITEM(p, i);
            if ffi::PyTuple_CheckExact(e) == 0 || ffi::PyTuple_GET_SIZE(e) != 2 {
                return py(p);
            }
            let k = value_of_ptr(py_, ffi::PyTuple_GET_ITEM(e, 0), ks);
            if !matches!(k, Value::Struct(_) | Value::Array(_) | Value::Map(_)) {
                return py(p); // such a map would have been a dict
            }
            out.push((k, value_of_ptr(py_, ffi::PyTuple_GET_ITEM(e, 1), vs)));
        }
        return Value::Map(out);
    }
    py(p)
}

unsafe fn structv(py_: Python<'_>, p: *mut ffi::PyObject) -> Option<Value> {
    let t = types::get()?;
    if ffi::Py_TYPE(p) != t.struct_tp {
        return None;
    }
    let schema_obj = slot(p, t.struct_schema);
    let values = slot(p, t.struct_values);
    if schema_obj.is_null() || values.is_null() || ffi::PyList_CheckExact(values) == 0 {
        return None;
    }
    let schema = NSchema::of(&Bound::from_borrowed_ptr(py_, schema_obj)).ok()?;
    let n = ffi::PyList_GET_SIZE(values);
    if n as usize != schema.fields.len() {
        return None;
    }
    let mut out = Vec::with_capacity(n as usize);
    for (i, f) in schema.fields.iter().enumerate() {
        out.push(value_of_ptr(
            py_,
            ffi::PyList_GET_ITEM(values, i as ffi::Py_ssize_t),
            Some(&f.schema),
        ));
    }
    Some(Value::Struct(Box::new(StructVal {
        schema,
        values: out,
    })))
}

unsafe fn decimal(py_: Python<'_>, p: *mut ffi::PyObject) -> Option<Value> {
    let tp = decimal_type(py_)?;
    if ffi::Py_TYPE(p) != tp {
        return None;
    }
    let obj = Bound::from_borrowed_ptr(py_, p);
    let t = obj.call_method0("as_tuple").ok()?;
    let t = t.cast::<PyTuple>().ok()?;
    let sign: i64 = t.get_item(0).ok()?.extract().ok()?;
    let exponent: i64 = t.get_item(2).ok()?.extract().ok()?; // 'n'/'N'/'F' are not ints
    let digits = t.get_item(1).ok()?;
    let digits = digits.cast::<PyTuple>().ok()?;
    if digits.len() > 38 {
        return None;
    }
    let mut unscaled: i128 = 0;
    for d in digits.iter() {
        let d: i128 = d.extract().ok()?;
        unscaled = unscaled * 10 + d;
    }
    if sign != 0 {
        unscaled = -unscaled;
    }
    let scale = i32::try_from(-exponent).ok()?;
    Some(Value::Decimal(Box::new(Dec { unscaled, scale })))
}

unsafe fn date(py_: Python<'_>, p: *mut ffi::PyObject) -> Option<Value> {
    let obj = Bound::from_borrowed_ptr(py_, p);
    let d = obj.cast_exact::<PyDate>().ok()?;
    let days = civil::to_days(d.get_year() as i64, d.get_month() as u32, d.get_day() as u32);
    Some(Value::Date(i32::try_from(days).ok()?))
}

unsafe fn time(py_: Python<'_>, p: *mut ffi::PyObject) -> Option<Value> {
    let obj = Bound::from_borrowed_ptr(py_, p);
    let t = obj.cast_exact::<PyTime>().ok()?;
    if t.get_tzinfo().is_some() || t.get_microsecond() % 1000 != 0 || t.get_fold() {
        return None;
    }
    let ms = ((t.get_hour() as i32 * 60 + t.get_minute() as i32) * 60 + t.get_second() as i32)
        * 1000
        + (t.get_microsecond() / 1000) as i32;
    Some(Value::Time(ms))
}

unsafe fn timestamp(py_: Python<'_>, p: *mut ffi::PyObject) -> Option<Value> {
    let obj = Bound::from_borrowed_ptr(py_, p);
    let t = obj.cast_exact::<PyDateTime>().ok()?;
    let tz = t.get_tzinfo()?;
    let utc = PyTzInfo::utc(py_).ok()?;
    if !tz.is(&*utc) || t.get_microsecond() % 1000 != 0 || t.get_fold() {
        return None;
    }
    let days = civil::to_days(t.get_year() as i64, t.get_month() as u32, t.get_day() as u32);
    let ms = ((days * 24 + t.get_hour() as i64) * 60 + t.get_minute() as i64) * 60_000
        + t.get_second() as i64 * 1000
        + (t.get_microsecond() / 1000) as i64;
    Some(Value::Timestamp(ms))
}
