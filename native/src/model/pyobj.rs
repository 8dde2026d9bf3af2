//! `PyObj`: a strong reference to a Python object inside native values, records and schemas.
//!
//! Unlike `pyo3::Py`, cloning and dropping need no token: everything in this crate that
//! touches the native record model runs with the GIL held (every entry point is a
//! `#[pyfunction]` or a method of a `#[pyclass]`, and nothing releases the GIL while values
//! are alive), which is what `Py_INCREF`/`Py_DECREF` require. That is why the type may be
//! `Send`/`Sync`: the pyclasses holding it are only ever used under the GIL.

use pyo3::ffi;
use pyo3::prelude::*;
use std::ptr::NonNull;

pub struct PyObj(NonNull<ffi::PyObject>);

unsafe impl Send for PyObj {}
unsafe impl Sync for PyObj {}

impl PyObj {
    /// A new strong reference to the borrowed object `p` (not null).
    #[inline]
    pub unsafe fn borrowed(p: *mut ffi::PyObject) -> PyObj {
        ffi::Py_INCREF(p);
        PyObj(NonNull::new_unchecked(p))
    }

    /// Take over the new reference `p`; None (with a Python error set) when `p` is null.
    #[inline]
    pub unsafe fn steal(p: *mut ffi::PyObject) -> Option<PyObj> {
        NonNull::new(p).map(PyObj)
    }

    #[inline]
    pub fn of(obj: &Bound<'_, PyAny>) -> PyObj {
        unsafe { PyObj::borrowed(obj.as_ptr()) }
    }

    #[inline]
    pub fn none() -> PyObj {
        unsafe { PyObj::borrowed(ffi::Py_None()) }
    }

    /// The object (borrowed).
    #[inline]
    pub fn as_ptr(&self) -> *mut ffi::PyObject {
        self.0.as_ptr()
    }

    /// A new reference for the caller.
    #[inline]
    pub fn new_ref(&self) -> *mut ffi::PyObject {
        unsafe { ffi::Py_INCREF(self.0.as_ptr()) };
        self.0.as_ptr()
    }

    /// Give the reference away.
    #[inline]
    pub fn into_ptr(self) -> *mut ffi::PyObject {
        let p = self.0.as_ptr();
        std::mem::forget(self);
        p
    }

    #[inline]
    pub fn bind<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        unsafe { Bound::from_borrowed_ptr(py, self.0.as_ptr()) }
    }

    #[inline]
    pub fn is_none(&self) -> bool {
        self.0.as_ptr() == unsafe { ffi::Py_None() }
    }
}

impl Clone for PyObj {
    #[inline]
    fn clone(&self) -> PyObj {
        unsafe { PyObj::borrowed(self.0.as_ptr()) }
    }
}

impl Drop for PyObj {
    #[inline]
    fn drop(&mut self) {
        unsafe { ffi::Py_DECREF(self.0.as_ptr()) };
    }
}
