//! A cache of freed pymalloc arenas, so that a worker's batches do not map fresh memory.
//!
//! CPython's small-object allocator takes memory from the system in arenas (1 MiB on 64-bit
//! builds of 3.10+) and gives an arena back (`munmap`) as soon as every object in it is free,
//! keeping only one empty arena. A batch of records allocates its objects (records, structs,
//! dicts, strings) together and frees them together after the next step, so whenever a batch
//! needs one arena more than the free blocks left by the previous one, that arena is unmapped
//! after the batch and mapped again by the next one: the kernel then zeroes and faults in 256
//! pages per arena on first touch. Whether a process falls into that pattern depends on where
//! its free blocks happen to lie; one that does spends ~35 ns more per record in the SMT chain
//! (bench/converters.py: 25,200 minor faults per million records, 97-100 ns a record against
//! 63-67 without faults, the same code in two processes).
//!
//! `install` puts an arena allocator in front of CPython's (`PyObject_SetArenaAllocator`): a
//! freed arena is kept, up to `max_bytes` of them, and handed out again by the next arena
//! allocation; beyond that, or for another size, CPython's own allocator maps and unmaps as
//! before. The cached memory stays resident (that is its point), so `max_bytes` bounds what
//! it adds to the process's RSS. pymalloc calls the arena functions with the GIL held; the
//! cache has its own lock all the same.

use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::c_void;
use std::sync::{Mutex, OnceLock};

struct Cache {
    /// CPython's allocator, which maps and unmaps
    inner: ffi::PyObjectArenaAllocator,
    max_bytes: usize,
    /// free arenas kept for reuse: (address, size)
    free: Vec<(usize, usize)>,
    kept_bytes: usize,
    reused: u64,
    mapped: u64,
    unmapped: u64,
}

// The allocator's context pointer is CPython's (or null); it is only passed back to it.
unsafe impl Send for Cache {}

static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();

extern "C" fn alloc(_ctx: *mut c_void, size: usize) -> *mut c_void {
    let Some(cache) = CACHE.get() else {
        return std::ptr::null_mut();
    };
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = c.free.iter().rposition(|&(_, s)| s == size) {
        let (p, s) = c.free.swap_remove(i);
        c.kept_bytes -= s;
        c.reused += 1;
        return p as *mut c_void;
    }
    c.mapped += 1;
    let inner = c.inner;
    drop(c);
    match inner.alloc {
        Some(f) => f(inner.ctx, size),
        None => std::ptr::null_mut(),
    }
}

extern "C" fn free(_ctx: *mut c_void, ptr: *mut c_void, size: usize) {
    let Some(cache) = CACHE.get() else {
        return;
    };
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    if c.kept_bytes + size <= c.max_bytes {
        c.free.push((ptr as usize, size));
        c.kept_bytes += size;
        return;
    }
    c.unmapped += 1;
    let inner = c.inner;
    drop(c);
    if let Some(f) = inner.free {
        f(inner.ctx, ptr, size);
    }
}

/// Put the arena cache in front of CPython's arena allocator, keeping up to `max_bytes` of
/// freed arenas; a second call only changes the bound (arenas kept beyond a lower one are
/// given back to CPython's allocator at once).
#[pyfunction]
pub fn install_arena_cache(max_bytes: usize) {
    if let Some(cache) = CACHE.get() {
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        c.max_bytes = max_bytes;
        while c.kept_bytes > max_bytes {
            let Some((p, size)) = c.free.pop() else { break };
            c.kept_bytes -= size;
            c.unmapped += 1;
            if let Some(f) = c.inner.free {
                f(c.inner.ctx, p as *mut c_void, size);
            }
        }
        return;
    }
    let mut inner = ffi::PyObjectArenaAllocator::default();
    unsafe { ffi::PyObject_GetArenaAllocator(&mut inner) };
    let cache = Cache {
        inner,
        max_bytes,
        free: Vec::new(),
        kept_bytes: 0,
        reused: 0,
        mapped: 0,
        unmapped: 0,
    };
    if CACHE.set(Mutex::new(cache)).is_err() {
        return;
    }
    let mut ours = ffi::PyObjectArenaAllocator {
        ctx: std::ptr::null_mut(),
        alloc: Some(alloc),
        free: Some(free),
    };
    unsafe { ffi::PyObject_SetArenaAllocator(&mut ours) };
}

/// The cache's counters: `kept_bytes` (freed arenas held now), `max_bytes`, `reused` (arena
/// allocations served from it), `mapped` (passed on to CPython's allocator since `install`)
/// and `unmapped` (frees passed on, the cache being full); None before `install`.
#[pyfunction]
pub fn arena_cache_stats(py: Python<'_>) -> PyResult<Option<Bound<'_, pyo3::types::PyDict>>> {
    let Some(cache) = CACHE.get() else {
        return Ok(None);
    };
    let (kept, max, reused, mapped, unmapped) = {
        let c = cache.lock().unwrap_or_else(|e| e.into_inner());
        (c.kept_bytes, c.max_bytes, c.reused, c.mapped, c.unmapped)
    };
    let d = pyo3::types::PyDict::new(py);
    d.set_item("kept_bytes", kept)?;
    d.set_item("max_bytes", max)?;
    d.set_item("reused", reused)?;
    d.set_item("mapped", mapped)?;
    d.set_item("unmapped", unmapped)?;
    Ok(Some(d))
}
