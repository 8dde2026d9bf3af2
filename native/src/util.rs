//! Small helpers over the CPython C API: owned references, slot access, JSON text pieces.
//!
//! Everything here runs with the GIL held (the callers are `#[pyfunction]`s / methods).

use pyo3::ffi;
use std::ptr;

/// An owned (strong) reference, released on drop. Never null once built with `new`.
pub struct Owned(pub *mut ffi::PyObject);

impl Owned {
    /// Take ownership of a new reference; None when `p` is null (a Python error is set).
    #[inline]
    pub fn new(p: *mut ffi::PyObject) -> Option<Owned> {
        if p.is_null() {
            None
        } else {
            Some(Owned(p))
        }
    }

    /// A new strong reference to a borrowed object.
    #[inline]
    pub fn borrowed(p: *mut ffi::PyObject) -> Owned {
        unsafe { ffi::Py_INCREF(p) };
        Owned(p)
    }

    /// Give the reference away (the caller now owns it).
    #[inline]
    pub fn into_ptr(self) -> *mut ffi::PyObject {
        let p = self.0;
        std::mem::forget(self);
        p
    }
}

impl Drop for Owned {
    #[inline]
    fn drop(&mut self) {
        unsafe { ffi::Py_DECREF(self.0) };
    }
}

/// The value stored in the `__slots__` member at `offset` (borrowed; null when unset).
#[inline]
pub unsafe fn slot(obj: *mut ffi::PyObject, offset: isize) -> *mut ffi::PyObject {
    *((obj as *mut u8).offset(offset) as *mut *mut ffi::PyObject)
}

/// Store a new reference to `value` in the empty slot at `offset` of a fresh object.
#[inline]
pub unsafe fn init_slot(obj: *mut ffi::PyObject, offset: isize, value: *mut ffi::PyObject) {
    ffi::Py_INCREF(value);
    *((obj as *mut u8).offset(offset) as *mut *mut ffi::PyObject) = value;
}

/// Store (stealing) `value` in the empty slot at `offset` of a fresh object.
#[inline]
pub unsafe fn init_slot_steal(obj: *mut ffi::PyObject, offset: isize, value: *mut ffi::PyObject) {
    *((obj as *mut u8).offset(offset) as *mut *mut ffi::PyObject) = value;
}

/// A fresh, zeroed instance of the heap type `tp` (slots all null), as `tp.__new__(tp)` makes
/// for a class with only `__slots__`.
#[inline]
pub unsafe fn alloc(tp: *mut ffi::PyTypeObject) -> Option<Owned> {
    let f = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
    Owned::new(f(tp, 0))
}

/// The offset of the `__slots__` member `name` of `tp` (from its member descriptor).
pub unsafe fn member_offset(tp: *mut ffi::PyObject, name: &str) -> Option<isize> {
    let cname = std::ffi::CString::new(name).ok()?;
    let descr = Owned::new(ffi::PyObject_GetAttrString(tp, cname.as_ptr()))?;
    if ffi::Py_TYPE(descr.0) != ptr::addr_of_mut!(ffi::PyMemberDescr_Type) {
        return None;
    }
    let d = descr.0 as *mut ffi::PyMemberDescrObject;
    // pyo3-ffi types d_member as a PyGetSetDef pointer; CPython's is a PyMemberDef.
    let def = (*d).d_member as *mut ffi::PyMemberDef;
    if def.is_null() || (*def).type_code != ffi::Py_T_OBJECT_EX {
        return None;
    }
    Some((*def).offset)
}

/// Clear the current Python error, if any (a failed fast path is redone in Python).
#[inline]
pub unsafe fn clear_error() {
    if !ffi::PyErr_Occurred().is_null() {
        ffi::PyErr_Clear();
    }
}

// ---------------------------------------------------------------------------------- JSON text

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Append a decimal integer.
#[inline]
pub fn push_i64(buf: &mut Vec<u8>, v: i64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    let neg = v < 0;
    let mut n = v.unsigned_abs();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if neg {
        buf.push(b'-');
    }
    buf.extend_from_slice(&tmp[i..]);
}

#[inline]
fn push_u_escape(buf: &mut Vec<u8>, cp: u32) {
    buf.extend_from_slice(b"\\u");
    buf.push(HEX[((cp >> 12) & 0xF) as usize]);
    buf.push(HEX[((cp >> 8) & 0xF) as usize]);
    buf.push(HEX[((cp >> 4) & 0xF) as usize]);
    buf.push(HEX[(cp & 0xF) as usize]);
}

#[inline]
fn push_escaped_ascii(buf: &mut Vec<u8>, b: u8) {
    match b {
        b'"' => buf.extend_from_slice(b"\\\""),
        b'\\' => buf.extend_from_slice(b"\\\\"),
        b'\n' => buf.extend_from_slice(b"\\n"),
        b'\r' => buf.extend_from_slice(b"\\r"),
        b'\t' => buf.extend_from_slice(b"\\t"),
        0x08 => buf.extend_from_slice(b"\\b"),
        0x0c => buf.extend_from_slice(b"\\f"),
        c if c < 0x20 => push_u_escape(buf, c as u32),
        c => buf.push(c),
    }
}

#[inline]
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

#[inline]
fn push_code_point(buf: &mut Vec<u8>, cp: u32) -> bool {
    if cp < 0x80 {
        push_escaped_ascii(buf, cp as u8);
    } else if (0xD800..0xE000).contains(&cp) {
        return false; // a lone surrogate: orjson refuses it, the Python path says why
    } else if cp >= 0x10000 {
        // Jackson escapes characters outside the BMP as a surrogate pair (upper-case hex).
        let c = cp - 0x10000;
        push_u_escape(buf, 0xD800 + (c >> 10));
        push_u_escape(buf, 0xDC00 + (c & 0x3FF));
    } else {
        let mut tmp = [0u8; 4];
        let s = char::from_u32(cp).unwrap().encode_utf8(&mut tmp);
        buf.extend_from_slice(s.as_bytes());
    }
    true
}

/// Append the Python str `s` as a JSON string the way Jackson writes it (orjson's text with
/// upper-case `\u00XX` escapes and surrogate pairs for non-BMP characters). False when the
/// string holds a lone surrogate (which has no JSON form).
pub unsafe fn push_json_str(buf: &mut Vec<u8>, s: *mut ffi::PyObject) -> bool {
    let len = ffi::PyUnicode_GET_LENGTH(s) as usize;
    let data = ffi::PyUnicode_DATA(s);
    buf.push(b'"');
    match ffi::PyUnicode_KIND(s) {
        ffi::PyUnicode_1BYTE_KIND => {
            let bytes = std::slice::from_raw_parts(data as *const u8, len);
            if ffi::PyUnicode_IS_ASCII(s) != 0 {
                let mut start = 0;
                for (i, &b) in bytes.iter().enumerate() {
                    if needs_escape(b) {
                        buf.extend_from_slice(&bytes[start..i]);
                        push_escaped_ascii(buf, b);
                        start = i + 1;
                    }
                }
                buf.extend_from_slice(&bytes[start..]);
            } else {
                for &b in bytes {
                    push_code_point(buf, b as u32);
                }
            }
        }
        ffi::PyUnicode_2BYTE_KIND => {
            let units = std::slice::from_raw_parts(data as *const u16, len);
            for &u in units {
                if !push_code_point(buf, u as u32) {
                    return false;
                }
            }
        }
        _ => {
            let units = std::slice::from_raw_parts(data as *const u32, len);
            for &u in units {
                if !push_code_point(buf, u) {
                    return false;
                }
            }
        }
    }
    buf.push(b'"');
    true
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Append `data` as a quoted standard base64 string (with padding), as `base64.b64encode`.
pub fn push_base64_str(buf: &mut Vec<u8>, data: &[u8]) {
    buf.push(b'"');
    let mut chunks = data.chunks_exact(3);
    for c in &mut chunks {
        let n = ((c[0] as u32) << 16) | ((c[1] as u32) << 8) | c[2] as u32;
        buf.push(B64[(n >> 18) as usize & 63]);
        buf.push(B64[(n >> 12) as usize & 63]);
        buf.push(B64[(n >> 6) as usize & 63]);
        buf.push(B64[n as usize & 63]);
    }
    let rest = chunks.remainder();
    if rest.len() == 1 {
        let n = (rest[0] as u32) << 16;
        buf.push(B64[(n >> 18) as usize & 63]);
        buf.push(B64[(n >> 12) as usize & 63]);
        buf.extend_from_slice(b"==");
    } else if rest.len() == 2 {
        let n = ((rest[0] as u32) << 16) | ((rest[1] as u32) << 8);
        buf.push(B64[(n >> 18) as usize & 63]);
        buf.push(B64[(n >> 12) as usize & 63]);
        buf.push(B64[(n >> 6) as usize & 63]);
        buf.push(b'=');
    }
    buf.push(b'"');
}

/// A new Python str from UTF-8 already known to be valid (`ascii`: every byte < 0x80).
#[inline]
pub unsafe fn new_str(bytes: &[u8], ascii: bool) -> Option<Owned> {
    if ascii {
        let s = Owned::new(ffi::PyUnicode_New(bytes.len() as isize, 127))?;
        ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            ffi::PyUnicode_DATA(s.0) as *mut u8,
            bytes.len(),
        );
        Some(s)
    } else {
        Owned::new(ffi::PyUnicode_FromStringAndSize(
            bytes.as_ptr() as *const _,
            bytes.len() as isize,
        ))
    }
}

/// Append the Python str `s` encoded as UTF-8 (from its own representation, without caching
/// a UTF-8 copy in the object); false when it holds a lone surrogate.
pub unsafe fn push_utf8(buf: &mut Vec<u8>, s: *mut ffi::PyObject) -> bool {
    let len = ffi::PyUnicode_GET_LENGTH(s) as usize;
    let data = ffi::PyUnicode_DATA(s);
    let mut put = |cp: u32| -> bool {
        match char::from_u32(cp) {
            Some(c) => {
                let mut tmp = [0u8; 4];
                buf.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                true
            }
            None => false,
        }
    };
    match ffi::PyUnicode_KIND(s) {
        ffi::PyUnicode_1BYTE_KIND => {
            let bytes = std::slice::from_raw_parts(data as *const u8, len);
            if ffi::PyUnicode_IS_ASCII(s) != 0 {
                buf.extend_from_slice(bytes);
            } else {
                for &b in bytes {
                    put(b as u32);
                }
            }
            true
        }
        ffi::PyUnicode_2BYTE_KIND => {
            let units = std::slice::from_raw_parts(data as *const u16, len);
            units.iter().all(|&u| put(u as u32))
        }
        _ => {
            let units = std::slice::from_raw_parts(data as *const u32, len);
            units.iter().all(|&u| put(u))
        }
    }
}

/// Bring the cache line at `p` (an object's reference count) towards the CPU; like
/// `prefetch`, harmless on any address.
#[inline(always)]
pub fn prefetch_one(p: *mut ffi::PyObject) {
    #[cfg(target_arch = "x86_64")]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch(p as *const i8, _MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The index of field `name` in STRUCT `schema` (its `Field.index`), asked of the Python
/// schema; None when the schema has no such field or the question fails.
pub unsafe fn field_index(schema: *mut ffi::PyObject, name: *mut ffi::PyObject) -> Option<usize> {
    if schema.is_null() {
        return None;
    }
    let f = Owned::new(ffi::PyObject_CallMethod(
        schema,
        c"field".as_ptr(),
        c"O".as_ptr(),
        name,
    ));
    let Some(f) = f else {
        crate::util::clear_error();
        return None;
    };
    if f.0 == ffi::Py_None() {
        return None;
    }
    let i = Owned::new(ffi::PyObject_GetAttrString(f.0, c"index".as_ptr()));
    let Some(i) = i else {
        crate::util::clear_error();
        return None;
    };
    let i = ffi::PyLong_AsSsize_t(i.0);
    if i < 0 {
        crate::util::clear_error();
        return None;
    }
    Some(i as usize)
}
