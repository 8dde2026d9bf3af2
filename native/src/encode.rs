//! JsonConverter encoding of one compiled schema: (schema, value) pairs to JSON bytes.
//!
//! The plan comes from `kconnect.converters.json_native.encoder_plan`, which derives it from
//! the Python reference encoder (null handling and defaults are probed from it, field names
//! are written by `kconnect.jackson`, and every type without a native rule is a `py` node that
//! calls the reference encoder). A value outside the plan's fast rules makes the whole record
//! come back as the fallback marker, and the Python path converts it (and raises its errors).

use crate::types;
use crate::util::{push_base64_str, push_i64, push_json_str, Owned};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

enum Null {
    Required,
    Nil,
    Default(Vec<u8>),
}

enum Kind {
    Int(i64, i64),
    Str,
    Bool,
    Bytes,
    Array(Box<Node>),
    Struct(Py<PyAny>, Vec<Field>),
    Py(Py<PyAny>),
}

struct Field {
    key: Vec<u8>,
    node: Node,
}

struct Node {
    kind: Kind,
    null: Null,
}

/// Marker for "give this record to the Python path".
struct Fallback;

fn parse_node(plan: &Bound<'_, PyAny>) -> PyResult<Node> {
    let t = plan.cast::<PyTuple>()?;
    let kind: String = t.get_item(0)?.extract()?;
    let mode: u8 = t.get_item(1)?.extract()?;
    let null = match mode {
        0 => Null::Required,
        1 => Null::Nil,
        2 => Null::Default(t.get_item(2)?.extract::<Vec<u8>>()?),
        _ => return Err(PyValueError::new_err("bad null mode")),
    };
    let kind = match kind.as_str() {
        "int" => Kind::Int(t.get_item(3)?.extract()?, t.get_item(4)?.extract()?),
        "str" => Kind::Str,
        "bool" => Kind::Bool,
        "bytes" => Kind::Bytes,
        "array" => Kind::Array(Box::new(parse_node(&t.get_item(3)?)?)),
        "struct" => {
            let schema = t.get_item(3)?.unbind();
            let mut fields = Vec::new();
            for f in t.get_item(4)?.try_iter()? {
                let f = f?;
                let ft = f.cast::<PyTuple>()?;
                fields.push(Field {
                    key: ft.get_item(1)?.extract::<Vec<u8>>()?,
                    node: parse_node(&ft.get_item(2)?)?,
                });
            }
            Kind::Struct(schema, fields)
        }
        "py" => Kind::Py(t.get_item(3)?.unbind()),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown encoder node {other}"
            )))
        }
    };
    Ok(Node { kind, null })
}

unsafe fn encode(node: &Node, v: *mut ffi::PyObject, buf: &mut Vec<u8>) -> Result<(), Fallback> {
    if v == ffi::Py_None() {
        return match &node.null {
            Null::Required => Err(Fallback),
            Null::Nil => {
                buf.extend_from_slice(b"null");
                Ok(())
            }
            Null::Default(d) => {
                buf.extend_from_slice(d);
                Ok(())
            }
        };
    }
    match &node.kind {
        Kind::Int(lo, hi) => {
            if ffi::PyLong_CheckExact(v) == 0 {
                return Err(Fallback);
            }
            let mut overflow = 0;
            let n = ffi::PyLong_AsLongLongAndOverflow(v, &mut overflow);
            if overflow != 0 || n < *lo || n > *hi {
                return Err(Fallback);
            }
            if n == -1 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return Err(Fallback);
            }
            push_i64(buf, n);
        }
        Kind::Str => {
            if ffi::PyUnicode_CheckExact(v) == 0 || !push_json_str(buf, v) {
                return Err(Fallback);
            }
        }
        Kind::Bool => {
            if v == ffi::Py_True() {
                buf.extend_from_slice(b"true");
            } else if v == ffi::Py_False() {
                buf.extend_from_slice(b"false");
            } else {
                return Err(Fallback);
            }
        }
        Kind::Bytes => {
            if ffi::PyBytes_CheckExact(v) == 0 {
                return Err(Fallback);
            }
            let p = ffi::PyBytes_AS_STRING(v) as *const u8;
            let n = ffi::Py_SIZE(v) as usize;
            push_base64_str(buf, std::slice::from_raw_parts(p, n));
        }
        Kind::Array(item) => {
            let n;
            let items: *mut *mut ffi::PyObject;
            if ffi::PyList_CheckExact(v) != 0 {
                n = ffi::PyList_GET_SIZE(v);
                items = (*(v as *mut ffi::PyListObject)).ob_item;
            } else if ffi::PyTuple_CheckExact(v) != 0 {
                n = ffi::PyTuple_GET_SIZE(v);
                items = (*(v as *mut ffi::PyTupleObject)).ob_item.as_mut_ptr();
            } else {
                return Err(Fallback);
            }
            buf.push(b'[');
            for i in 0..n {
                if i > 0 {
                    buf.push(b',');
                }
                encode(item, *items.offset(i), buf)?;
            }
            buf.push(b']');
        }
        Kind::Struct(schema, fields) => {
            let t = types::get().ok_or(Fallback)?;
            if ffi::Py_TYPE(v) != t.struct_tp {
                return Err(Fallback);
            }
            if crate::util::slot(v, t.struct_schema) != schema.as_ptr() {
                return Err(Fallback);
            }
            // the values: a list in the schema's field order, as the plan's fields
            let values = crate::util::slot(v, t.struct_values);
            if values.is_null()
                || ffi::PyList_CheckExact(values) == 0
                || ffi::PyList_GET_SIZE(values) as usize != fields.len()
            {
                return Err(Fallback);
            }
            buf.push(b'{');
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    buf.push(b',');
                }
                buf.extend_from_slice(&f.key);
                encode(&f.node, ffi::PyList_GET_ITEM(values, i as isize), buf)?;
            }
            buf.push(b'}');
        }
        Kind::Py(f) => {
            let r = Owned::new(ffi::PyObject_CallOneArg(f.as_ptr(), v)).ok_or_else(|| {
                ffi::PyErr_Clear();
                Fallback
            })?;
            if ffi::PyBytes_CheckExact(r.0) == 0 {
                return Err(Fallback);
            }
            let p = ffi::PyBytes_AS_STRING(r.0) as *const u8;
            let n = ffi::Py_SIZE(r.0) as usize;
            buf.extend_from_slice(std::slice::from_raw_parts(p, n));
        }
    }
    Ok(())
}

/// The compiled encoder of one schema.
#[pyclass(module = "kconnect_native", frozen)]
pub struct JsonEncoder {
    root: Node,
    schema: Py<PyAny>,
}

#[pymethods]
impl JsonEncoder {
    #[new]
    fn new(schema: Bound<'_, PyAny>, plan: Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(JsonEncoder {
            root: parse_node(&plan)?,
            schema: schema.unbind(),
        })
    }

    /// Encode `items` (a list of `(schema, value)` pairs): `(out, misses)`, `out` aligned with
    /// `items` holding the
    /// bytes (`prefix + payload + b"}"`, or the bare payload when `prefix` is None), None for a
    /// `(None, None)` tombstone, and `fallback` for every pair this encoder does not convert
    /// (another schema object, or a value outside its fast rules); `misses` counts those.
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        items: Bound<'py, PyList>,
        prefix: Option<Bound<'py, PyBytes>>,
        fallback: Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyList>, usize)> {
        let n = items.len();
        let mut misses = 0usize;
        let out = PyList::empty(py);
        let prefix: &[u8] = match &prefix {
            Some(p) => p.as_bytes(),
            None => &[],
        };
        let enveloped = !prefix.is_empty();
        let schema = self.schema.as_ptr();
        let mut buf: Vec<u8> = Vec::with_capacity(256);
        unsafe {
            let list = items.as_ptr();
            for i in 0..n {
                let item = ffi::PyList_GET_ITEM(list, i as isize);
                let r: *mut ffi::PyObject;
                if ffi::PyTuple_CheckExact(item) == 0 || ffi::PyTuple_GET_SIZE(item) != 2 {
                    r = fallback.as_ptr();
                    ffi::Py_INCREF(r);
                    misses += 1;
                } else {
                    let s = ffi::PyTuple_GET_ITEM(item, 0);
                    let v = ffi::PyTuple_GET_ITEM(item, 1);
                    if s == ffi::Py_None() && v == ffi::Py_None() {
                        r = ffi::Py_None();
                        ffi::Py_INCREF(r);
                    } else if s != schema {
                        r = fallback.as_ptr();
                        ffi::Py_INCREF(r);
                        misses += 1;
                    } else {
                        buf.clear();
                        buf.extend_from_slice(prefix);
                        match encode(&self.root, v, &mut buf) {
                            Ok(()) => {
                                if enveloped {
                                    buf.push(b'}');
                                }
                                r = ffi::PyBytes_FromStringAndSize(
                                    buf.as_ptr() as *const _,
                                    buf.len() as isize,
                                );
                                if r.is_null() {
                                    return Err(PyErr::fetch(py));
                                }
                            }
                            Err(Fallback) => {
                                r = fallback.as_ptr();
                                ffi::Py_INCREF(r);
                                misses += 1;
                            }
                        }
                    }
                }
                if ffi::PyList_Append(out.as_ptr(), r) != 0 {
                    ffi::Py_DECREF(r);
                    return Err(PyErr::fetch(py));
                }
                ffi::Py_DECREF(r);
            }
        }
        Ok((out, misses))
    }
}
