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
//! it adds to the process's RSS -- while the process works: with `release_after_s`, a thread
//! gives every kept arena back once no arena was allocated or freed for that long, so an idle
//! process (a task process whose tasks wait for data, a worker between REST calls) holds none
//! (the thread sleeps on a condition variable while nothing is kept: it costs no wake-ups).
//! pymalloc calls the arena functions with the GIL held; the cache has its own lock all the
//! same; giving arenas back is an `munmap` through CPython's own arena allocator, which needs
//! no GIL, made outside the cache's lock.

use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::c_void;
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

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
    /// when an arena was last allocated or freed
    last_use: Instant,
    /// give everything back after this long without arena traffic (None: never)
    release_after: Option<Duration>,
    /// arenas given back by the idle release
    released: u64,
}

impl Cache {
    /// Take every kept arena out of the cache (to be given back outside the lock).
    fn take_all(&mut self) -> Vec<(usize, usize)> {
        self.kept_bytes = 0;
        std::mem::take(&mut self.free)
    }
}

// The allocator's context pointer is CPython's (or null); it is only passed back to it.
unsafe impl Send for Cache {}

static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
/// Woken when the cache starts keeping arenas, or its release delay changes.
static KEPT: Condvar = Condvar::new();

extern "C" fn alloc(_ctx: *mut c_void, size: usize) -> *mut c_void {
    let Some(cache) = CACHE.get() else {
        return std::ptr::null_mut();
    };
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    c.last_use = Instant::now();
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
    c.last_use = Instant::now();
    if c.kept_bytes + size <= c.max_bytes {
        if c.kept_bytes == 0 {
            KEPT.notify_all();
        }
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
/// freed arenas, all given back after `release_after_s` seconds without arena traffic (0:
/// kept until reused); a second call only changes the bound and the delay (arenas kept beyond
/// a lower bound are given back at once).
#[pyfunction]
#[pyo3(signature = (max_bytes, release_after_s=0.0))]
pub fn install_arena_cache(max_bytes: usize, release_after_s: f64) {
    let release_after =
        (release_after_s > 0.0).then(|| Duration::from_secs_f64(release_after_s));
    if let Some(cache) = CACHE.get() {
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        c.max_bytes = max_bytes;
        c.release_after = release_after;
        while c.kept_bytes > max_bytes {
            let Some((p, size)) = c.free.pop() else { break };
            c.kept_bytes -= size;
            c.unmapped += 1;
            if let Some(f) = c.inner.free {
                f(c.inner.ctx, p as *mut c_void, size);
            }
        }
        KEPT.notify_all();
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
        last_use: Instant::now(),
        release_after,
        released: 0,
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
    let _ = std::thread::Builder::new()
        .name("kconnect-arenas".into())
        .spawn(release_when_idle);
}

/// The idle release: sleeps while nothing is kept (or no delay is set); otherwise wakes when
/// the delay since the last arena traffic has passed and gives every kept arena back.
fn release_when_idle() {
    let Some(cache) = CACHE.get() else { return };
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        match c.release_after {
            Some(after) if c.kept_bytes > 0 => {
                let idle = c.last_use.elapsed();
                if idle >= after {
                    let arenas = c.take_all();
                    let n = arenas.len() as u64;
                    let inner = c.inner;
                    // unmapped outside the lock: a fork meanwhile copies it unlocked
                    drop(c);
                    if let Some(f) = inner.free {
                        for (p, size) in arenas {
                            f(inner.ctx, p as *mut c_void, size);
                        }
                    }
                    c = cache.lock().unwrap_or_else(|e| e.into_inner());
                    // counted once they are gone
                    c.released += n;
                    c.unmapped += n;
                } else {
                    c = KEPT.wait_timeout(c, after - idle).unwrap_or_else(|e| e.into_inner()).0;
                }
            }
            _ => c = KEPT.wait(c).unwrap_or_else(|e| e.into_inner()),
        }
    }
}

/// The cache's counters: `kept_bytes` (freed arenas held now), `max_bytes`, `reused` (arena
/// allocations served from it), `mapped` (passed on to CPython's allocator since `install`)
/// and `unmapped` (arenas given back: the cache being full, or idle), `released` (of those, by
/// the idle release); None before `install`.
#[pyfunction]
pub fn arena_cache_stats(py: Python<'_>) -> PyResult<Option<Bound<'_, pyo3::types::PyDict>>> {
    let Some(cache) = CACHE.get() else {
        return Ok(None);
    };
    let (kept, max, reused, mapped, unmapped, released) = {
        let c = cache.lock().unwrap_or_else(|e| e.into_inner());
        (c.kept_bytes, c.max_bytes, c.reused, c.mapped, c.unmapped, c.released)
    };
    let d = pyo3::types::PyDict::new(py);
    d.set_item("kept_bytes", kept)?;
    d.set_item("max_bytes", max)?;
    d.set_item("reused", reused)?;
    d.set_item("mapped", mapped)?;
    d.set_item("unmapped", unmapped)?;
    d.set_item("released", released)?;
    Ok(Some(d))
}
