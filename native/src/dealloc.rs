//! A shorter deallocator for the data-model classes whose instances a worker frees by the
//! million (records, structs).
//!
//! A Python class with `__slots__` is freed by CPython's generic `subtype_dealloc`, which
//! works for every class: it walks the class hierarchy and each class's member table to find
//! the slots, re-tracks the object for the garbage collector before handing it to the base
//! class's deallocator, which untracks it again, and guards against deep recursion. For a class
//! whose layout is known to be "object header + these slots, nothing else" (no `__dict__`, no
//! `__weakref__`, no `__del__`, every base a slots-only Python class down to `object`), freeing
//! is: untrack, drop each slot's reference, free the memory, drop the reference to the class.
//! That is what `install` puts in the class's `tp_dealloc` after checking the layout; a class
//! it cannot prove plain keeps `subtype_dealloc`.
//!
//! Subclasses keep `subtype_dealloc`: it clears the subclass's own slots (and its `__dict__`,
//! weak references and finalizer, if any), stops at the first base whose deallocator is not
//! `subtype_dealloc` (the installed one) and calls it; because that base is a heap type, the
//! base deallocator drops the reference to the object's class, which is what the installed one
//! does for every object.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::util::prefetch_one;

/// Classes this module can take over (each needs its own `tp_dealloc` function, which finds
/// its slot offsets here).
const MAX_CLASSES: usize = 8;

static SLOTS: [OnceLock<(usize, Vec<isize>)>; MAX_CLASSES] =
    [const { OnceLock::new() }; MAX_CLASSES];

/// CPython's garbage-collector header in front of a tracked object (two words).
const GC_HEAD: isize = 2 * std::mem::size_of::<usize>() as isize;
/// Where `ob_type` sits in an object (after the reference count).
const TYPE_OFFSET: usize = std::mem::size_of::<ffi::Py_ssize_t>();
/// How many objects ahead the deallocator prefetches (bench/converters.py's chain).
const AHEAD_FREE: usize = 6;

/// The object each class's deallocator freed last (the direction of the next guess).
static LAST: [AtomicUsize; MAX_CLASSES] = [const { AtomicUsize::new(0) }; MAX_CLASSES];

unsafe extern "C" fn dealloc<const K: usize>(o: *mut ffi::PyObject) {
    let tp = ffi::Py_TYPE(o);
    ffi::PyObject_GC_UnTrack(o as *mut c_void);
    // set only by `install`, before the function is put in the class
    if let Some((_, offsets)) = SLOTS[K].get() {
        // The objects next to this one in memory are most likely the next to be freed: a
        // batch's records are allocated side by side in a pool and freed in that order. The
        // order is ascending, or descending when the pool's blocks come from its free list
        // (last freed, first reused), so the direction is the one from the object freed just
        // before. Start fetching what the object AHEAD_FREE blocks on points to, whose
        // reference counts its deallocation will write. Only memory in this object's own
        // 4 KiB page is read (mapped, whatever lies there now); a wrong guess or a free block
        // only prefetches a useless address.
        let size = (*tp).tp_basicsize;
        let block = ((GC_HEAD + size + 15) & !15) as usize;
        let here = o as usize;
        let last = LAST[K].load(Ordering::Relaxed);
        LAST[K].store(here, Ordering::Relaxed);
        let next = if last == here + block {
            here.wrapping_sub(AHEAD_FREE * block)
        } else {
            here + AHEAD_FREE * block
        };
        if next >> 12 == here >> 12
            && (next + size as usize - 1) >> 12 == here >> 12
            && ptr::read_volatile((next + TYPE_OFFSET) as *const *mut ffi::PyTypeObject) == tp
        {
            for &off in offsets {
                let p = (next as isize + off) as *const *mut ffi::PyObject;
                prefetch_one(ptr::read_volatile(p));
            }
        }
        for &off in offsets {
            let p = (o as *mut u8).offset(off) as *mut *mut ffi::PyObject;
            let v = *p;
            if !v.is_null() {
                *p = ptr::null_mut();
                ffi::Py_DECREF(v);
            }
        }
    }
    ffi::PyObject_GC_Del(o as *mut c_void);
    ffi::Py_DECREF(tp as *mut ffi::PyObject);
}

const FUNCS: [unsafe extern "C" fn(*mut ffi::PyObject); MAX_CLASSES] = [
    dealloc::<0>,
    dealloc::<1>,
    dealloc::<2>,
    dealloc::<3>,
    dealloc::<4>,
    dealloc::<5>,
    dealloc::<6>,
    dealloc::<7>,
];

/// The object-pointer slot offsets of `tp` and its bases (sorted), or why the class is not
/// plain.
pub unsafe fn plain_slots(tp: *mut ffi::PyTypeObject) -> Result<Vec<isize>, String> {
    let object = ptr::addr_of_mut!(ffi::PyBaseObject_Type);
    let generic = (*tp).tp_dealloc.map(|f| f as usize);
    let mut offsets = Vec::new();
    let mut t = tp;
    while t != object {
        if t.is_null() {
            return Err("its bases do not end at object".into());
        }
        let flags = (*t).tp_flags;
        if flags & ffi::Py_TPFLAGS_HAVE_GC == 0 {
            return Err("its instances are not tracked by the garbage collector".into());
        }
        if flags & ffi::Py_TPFLAGS_HEAPTYPE == 0 {
            return Err("it derives from a built-in type other than object".into());
        }
        if (*t).tp_dealloc.map(|f| f as usize) != generic {
            return Err("a base class has its own deallocator".into());
        }
        if (*t).tp_dictoffset != 0 || (*t).tp_weaklistoffset != 0 {
            return Err("it has __dict__ or __weakref__".into());
        }
        if (*t).tp_finalize.is_some() || (*t).tp_del.is_some() {
            return Err("it has a finalizer".into());
        }
        let bases = (*t).tp_bases;
        if bases.is_null() || ffi::PyTuple_Size(bases) != 1 {
            return Err("it has more than one base class".into());
        }
        let mut m = (*t).tp_members;
        while !m.is_null() && !(*m).name.is_null() {
            if (*m).type_code != ffi::Py_T_OBJECT_EX {
                return Err("a slot is not an object slot".into());
            }
            offsets.push((*m).offset);
            m = m.add(1);
        }
        t = (*t).tp_base;
    }
    let header = std::mem::size_of::<ffi::PyObject>() as isize;
    let expected = header + (offsets.len() * std::mem::size_of::<*mut ffi::PyObject>()) as isize;
    if (*tp).tp_basicsize != expected || (*tp).tp_itemsize != 0 {
        return Err("its instances hold more than their slots".into());
    }
    offsets.sort_unstable();
    Ok(offsets)
}

/// Put the short deallocator in `cls` (a plain `__slots__` class, see the module's text).
/// Raises TypeError, and changes nothing, when the class is not plain; installing twice is a
/// no-op.
#[pyfunction]
pub fn install_dealloc(cls: &Bound<'_, PyAny>) -> PyResult<()> {
    if unsafe { ffi::PyType_Check(cls.as_ptr()) } == 0 {
        return Err(PyTypeError::new_err(format!("{cls} is not a class")));
    }
    let tp = cls.as_ptr() as *mut ffi::PyTypeObject;
    for (k, cell) in SLOTS.iter().enumerate() {
        if let Some((owner, _)) = cell.get() {
            if *owner == tp as usize {
                return Ok(());
            }
            continue;
        }
        let offsets = unsafe { plain_slots(tp) }
            .map_err(|why| PyTypeError::new_err(format!("{cls}: {why}")))?;
        if cell.set((tp as usize, offsets)).is_err() {
            return Err(PyTypeError::new_err("install_dealloc raced with itself"));
        }
        // the class must outlive every instance; it does (each holds a reference), and the
        // function is kept for the life of the process with the class alive as well
        std::mem::forget(cls.clone().unbind());
        unsafe {
            (*tp).tp_dealloc = Some(FUNCS[k]);
            ffi::PyType_Modified(tp);
        }
        return Ok(());
    }
    Err(PyTypeError::new_err(format!(
        "{cls}: no room for another class (at most {MAX_CLASSES})"
    )))
}
