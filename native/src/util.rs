//! Small helpers over the CPython C API: owned references, slot access, UTF-8 text.
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
