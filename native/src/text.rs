//! StringConverter batches with UTF-8 on both sides, as its Python batch methods do them:
//! `str.encode("utf-8", "replace")` / `bytes.decode("utf-8", "replace")` are the same CPython
//! codec calls, made without an interpreter loop around them.

use crate::types;
use crate::util::Owned;
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;

const UTF8: &std::ffi::CStr = c"utf-8";
const REPLACE: &std::ffi::CStr = c"replace";

/// `[v.encode("utf-8", "replace") if type(v) is str else fallback for s, v in items]`, with
/// the number of fallbacks (the converter's own path does those: None, other types).
#[pyfunction]
pub fn utf8_encode_batch<'py>(
    py: Python<'py>,
    items: Bound<'py, PyList>,
    fallback: Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyList>, usize)> {
    let n = items.len();
    let mut misses = 0;
    unsafe {
        let out = Owned::new(ffi::PyList_New(n as isize)).ok_or_else(|| PyErr::fetch(py))?;
        for i in 0..n {
            let item = ffi::PyList_GET_ITEM(items.as_ptr(), i as isize);
            let mut r = None;
            if ffi::PyTuple_Check(item) != 0 && ffi::PyTuple_GET_SIZE(item) == 2 {
                let v = ffi::PyTuple_GET_ITEM(item, 1);
                if ffi::PyUnicode_CheckExact(v) != 0 {
                    r = Some(
                        Owned::new(ffi::PyUnicode_AsEncodedString(
                            v,
                            UTF8.as_ptr(),
                            REPLACE.as_ptr(),
                        ))
                        .ok_or_else(|| PyErr::fetch(py))?,
                    );
                }
            }
            let r = r.unwrap_or_else(|| {
                misses += 1;
                Owned::borrowed(fallback.as_ptr())
            });
            ffi::PyList_SET_ITEM(out.0, i as isize, r.into_ptr());
        }
        Ok((
            Bound::from_owned_ptr(py, out.into_ptr())
                .cast_into::<PyList>()
                .unwrap(),
            misses,
        ))
    }
}

/// `[SchemaAndValue(schema, None if v is None else v.decode("utf-8", "replace")) ...]` for
/// `bytes` values, with `fallback` (and a count) for any other type of value.
#[pyfunction]
pub fn utf8_decode_batch<'py>(
    py: Python<'py>,
    values: Bound<'py, PyList>,
    schema: Bound<'py, PyAny>,
    fallback: Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyList>, usize)> {
    let t = types::get().ok_or_else(|| PyValueError::new_err("kconnect_native.init not called"))?;
    let n = values.len();
    let mut misses = 0;
    unsafe {
        let out = Owned::new(ffi::PyList_New(n as isize)).ok_or_else(|| PyErr::fetch(py))?;
        for i in 0..n {
            let v = ffi::PyList_GET_ITEM(values.as_ptr(), i as isize);
            let s = if v == ffi::Py_None() {
                Some(Owned::borrowed(v))
            } else if ffi::PyBytes_CheckExact(v) != 0 {
                Some(
                    Owned::new(ffi::PyUnicode_DecodeUTF8(
                        ffi::PyBytes_AS_STRING(v),
                        ffi::Py_SIZE(v),
                        REPLACE.as_ptr(),
                    ))
                    .ok_or_else(|| PyErr::fetch(py))?,
                )
            } else {
                None
            };
            let r = match s {
                Some(s) => {
                    let sv = Owned::new(
                        ((*t.sav_tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc))(t.sav_tp, 2),
                    )
                    .ok_or_else(|| PyErr::fetch(py))?;
                    ffi::Py_INCREF(schema.as_ptr());
                    ffi::PyTuple_SET_ITEM(sv.0, 0, schema.as_ptr());
                    ffi::PyTuple_SET_ITEM(sv.0, 1, s.into_ptr());
                    sv
                }
                None => {
                    misses += 1;
                    Owned::borrowed(fallback.as_ptr())
                }
            };
            ffi::PyList_SET_ITEM(out.0, i as isize, r.into_ptr());
        }
        Ok((
            Bound::from_owned_ptr(py, out.into_ptr())
                .cast_into::<PyList>()
                .unwrap(),
            misses,
        ))
    }
}
