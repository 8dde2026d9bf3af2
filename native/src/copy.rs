//! PostgreSQL binary COPY data of a batch of rows, as psycopg's row mode writes it.
//!
//! `copy_binary(rows, oids)` gives the whole stream -- signature, one tuple per row, trailer --
//! for the column types whose binary form it knows (int2/int4/int8, float4/float8, bool,
//! text/varchar, bytea) and values of exactly the Python type those columns take (int within
//! the column's range, float, bool, str, bytes, or None). For anything else it returns None and
//! the caller writes the rows with psycopg (`Copy.write_row`), which then converts or refuses
//! them as it always does. Text goes as UTF-8: the caller uses this only on a UTF-8 connection.

use crate::util::{push_utf8, Owned};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

const SIGNATURE: &[u8] = b"PGCOPY\n\xff\r\n\0\x00\x00\x00\x00\x00\x00\x00\x00";
const TRAILER: &[u8] = b"\xff\xff";

#[derive(Clone, Copy)]
enum Col {
    Int(i64, i64, usize),
    Float4,
    Float8,
    Bool,
    Text,
    Bytea,
}

fn col_of(oid: u32) -> Option<Col> {
    Some(match oid {
        21 => Col::Int(i16::MIN as i64, i16::MAX as i64, 2),
        23 => Col::Int(i32::MIN as i64, i32::MAX as i64, 4),
        20 => Col::Int(i64::MIN, i64::MAX, 8),
        700 => Col::Float4,
        701 => Col::Float8,
        16 => Col::Bool,
        25 | 1043 => Col::Text,
        17 => Col::Bytea,
        _ => return None,
    })
}

/// Append one field (length-prefixed); false when the value is not one this column takes here.
#[inline]
unsafe fn field(buf: &mut Vec<u8>, col: Col, v: *mut ffi::PyObject) -> bool {
    if v == ffi::Py_None() {
        buf.extend_from_slice(b"\xff\xff\xff\xff");
        return true;
    }
    match col {
        Col::Int(lo, hi, width) => {
            if ffi::PyLong_CheckExact(v) == 0 {
                return false;
            }
            let mut overflow = 0;
            let n = ffi::PyLong_AsLongLongAndOverflow(v, &mut overflow);
            if overflow != 0 || n < lo || n > hi {
                return false;
            }
            if n == -1 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return false;
            }
            buf.extend_from_slice(&(width as i32).to_be_bytes());
            buf.extend_from_slice(&n.to_be_bytes()[8 - width..]);
        }
        Col::Float4 | Col::Float8 => {
            if ffi::PyFloat_CheckExact(v) == 0 {
                return false;
            }
            let f = ffi::PyFloat_AS_DOUBLE(v);
            if let Col::Float4 = col {
                buf.extend_from_slice(&4i32.to_be_bytes());
                buf.extend_from_slice(&(f as f32).to_bits().to_be_bytes());
            } else {
                buf.extend_from_slice(&8i32.to_be_bytes());
                buf.extend_from_slice(&f.to_bits().to_be_bytes());
            }
        }
        Col::Bool => {
            let b = if v == ffi::Py_True() {
                1u8
            } else if v == ffi::Py_False() {
                0u8
            } else {
                return false;
            };
            buf.extend_from_slice(&1i32.to_be_bytes());
            buf.push(b);
        }
        Col::Text => {
            if ffi::PyUnicode_CheckExact(v) == 0 {
                return false;
            }
            // the length prefix is filled in once the text is written
            let at = buf.len();
            buf.extend_from_slice(&[0, 0, 0, 0]);
            if !push_utf8(buf, v) {
                return false; // a lone surrogate: psycopg raises its UnicodeEncodeError
            }
            let size = buf.len() - at - 4;
            if size > i32::MAX as usize {
                return false;
            }
            buf[at..at + 4].copy_from_slice(&(size as i32).to_be_bytes());
        }
        Col::Bytea => {
            // `bytes` or a subclass (the reference's ByteBuffer: Avro bytes), laid out alike
            if ffi::PyBytes_Check(v) == 0 {
                return false;
            }
            let n = ffi::Py_SIZE(v);
            if n > i32::MAX as isize {
                return false;
            }
            buf.extend_from_slice(&(n as i32).to_be_bytes());
            let p = ffi::PyBytes_AS_STRING(v) as *const u8;
            buf.extend_from_slice(std::slice::from_raw_parts(p, n as usize));
        }
    }
    true
}

/// The binary COPY stream of `rows` (a list of tuples or lists) for columns of types `oids`,
/// or None when a column type or a value is not one handled here.
#[pyfunction]
pub fn copy_binary<'py>(
    py: Python<'py>,
    rows: Bound<'py, PyList>,
    oids: Vec<u32>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let cols: Option<Vec<Col>> = oids.iter().map(|&o| col_of(o)).collect();
    let Some(cols) = cols else { return Ok(None) };
    if cols.len() > i16::MAX as usize {
        return Ok(None);
    }
    let n = rows.len();
    let mut buf: Vec<u8> = Vec::with_capacity(SIGNATURE.len() + n * (2 + cols.len() * 12) + 2);
    buf.extend_from_slice(SIGNATURE);
    unsafe {
        let list = rows.as_ptr();
        for i in 0..n {
            let row = ffi::PyList_GET_ITEM(list, i as isize);
            let (items, len) = if ffi::PyTuple_CheckExact(row) != 0 {
                (
                    (*(row as *mut ffi::PyTupleObject)).ob_item.as_mut_ptr(),
                    ffi::PyTuple_GET_SIZE(row),
                )
            } else if ffi::PyList_CheckExact(row) != 0 {
                (
                    (*(row as *mut ffi::PyListObject)).ob_item,
                    ffi::PyList_GET_SIZE(row),
                )
            } else {
                return Ok(None);
            };
            if len as usize != cols.len() {
                return Ok(None); // psycopg names the wrong length
            }
            buf.extend_from_slice(&(len as i16).to_be_bytes());
            for (j, &col) in cols.iter().enumerate() {
                if !field(&mut buf, col, *items.add(j)) {
                    return Ok(None);
                }
            }
        }
    }
    buf.extend_from_slice(TRAILER);
    let b = unsafe {
        Owned::new(ffi::PyBytes_FromStringAndSize(
            buf.as_ptr() as *const _,
            buf.len() as isize,
        ))
        .ok_or_else(|| PyErr::fetch(py))?
    };
    Ok(Some(unsafe {
        Bound::from_owned_ptr(py, b.into_ptr())
            .cast_into::<PyBytes>()
            .unwrap()
    }))
}
