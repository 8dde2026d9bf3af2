//! The Connect group protocol's assignment arrays (`kconnect.kafka.group.connect_protocol`):
//! `array[{string connector, array[int32 task]}]`, encoded and decoded natively.
//!
//! At every rebalance each member encodes its whole allocation into its join metadata and the
//! leader decodes every member's: thousands of entries at size, per rebalance, on the thread
//! that runs the group protocol. The Python functions stay the reference: these return None
//! for anything they do not fully understand (a task id that is not a `(str, int)` tuple, a
//! malformed array), and the Python code then does it and raises its own errors.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

/// Java's `String.hashCode` folded as `HashMap.hash` does.
fn java_spread_hash(s: &str) -> u32 {
    let h = s.encode_utf16().fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(c as u32));
    h ^ (h >> 16)
}

/// The array of `connectors` (task `-1`) and `tasks` grouped by connector, as
/// `connect_protocol._assigned_entries` (`java_order`: connectors in Java's `HashSet` order)
/// or `_revoked_entries` (connectors in first-seen order) groups them, then `_w_array` writes
/// them: int32 count, then each entry. None when a connector is not a str or a task id not a
/// `(str, int)` tuple, or a name is too long for an int16 length.
#[pyfunction]
pub fn connect_assignment_array<'py>(
    py: Python<'py>,
    connectors: Bound<'py, PyAny>,
    tasks: Bound<'py, PyAny>,
    java_order: bool,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    // the objects, held while their UTF-8 (cached in each str) is borrowed below
    let mut held: Vec<Bound<'py, PyAny>> = Vec::new();
    for c in connectors.try_iter()? {
        held.push(c?);
    }
    let n_connectors = held.len();
    let mut numbers: Vec<i32> = Vec::new();
    for t in tasks.try_iter()? {
        let t = t?;
        let Ok(t) = t.cast_into::<PyTuple>() else {
            return Ok(None);
        };
        if t.len() != 2 {
            return Ok(None);
        }
        let Ok(n) = t.get_item(1)?.extract::<i32>() else {
            return Ok(None);
        };
        numbers.push(n);
        held.push(t.get_item(0)?);
    }
    let mut strs: Vec<&str> = Vec::with_capacity(held.len());
    for o in &held {
        let Ok(s) = o.cast::<PyString>() else {
            return Ok(None);
        };
        strs.push(s.to_str()?);
    }
    let (names, task_names) = strs.split_at(n_connectors);
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    let mut order: Vec<&str> = names.iter().copied().filter(|s| seen.insert(*s)).collect();
    if java_order {
        // a HashSet of these names: the table's capacity, then a stable sort by bucket (each
        // bucket keeps insertion order, as its linked list does)
        let wanted = ((order.len() as f64 / 0.75) as usize + 1).max(16);
        let mask = (wanted.next_power_of_two() - 1) as u32;
        order.sort_by_cached_key(|s| java_spread_hash(s) & mask);
    }
    let mut ids: std::collections::HashMap<&str, Vec<i32>> = std::collections::HashMap::with_capacity(order.len());
    for s in &order {
        ids.insert(s, vec![-1]);
    }
    for (c, n) in task_names.iter().zip(numbers) {
        match ids.get_mut(c) {
            Some(v) => v.push(n),
            None => {
                ids.insert(c, vec![n]);
                order.push(c);
            }
        }
    }
    let mut out = Vec::with_capacity(4 + order.len() * 24);
    out.extend_from_slice(&(order.len() as i32).to_be_bytes());
    for c in &order {
        let b = c.as_bytes();
        let Ok(len) = i16::try_from(b.len()) else {
            return Ok(None);
        };
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(b);
        let v = &ids[c];
        out.extend_from_slice(&(v.len() as i32).to_be_bytes());
        for n in v {
            out.extend_from_slice(&n.to_be_bytes());
        }
    }
    Ok(Some(PyBytes::new(py, &out)))
}

/// `(connectors, tasks, end)` of an array read.
type ReadArray<'py> = (Bound<'py, PyList>, Bound<'py, PyList>, usize);

/// The array at `pos` of `buf` read as `_Reader.assignment_array` reads it: `(connectors,
/// tasks, end)` with each task id made by `task_id(connector, n)` and `end` the position after
/// the array; an array of count -1 (null) reads as empty. None when the array is malformed
/// (truncated, a null name or task list, a name that is not UTF-8): the Python reader reads
/// it and says what is wrong.
#[pyfunction]
pub fn connect_read_assignment_array<'py>(
    py: Python<'py>,
    buf: &[u8],
    pos: usize,
    task_id: Bound<'py, PyAny>,
) -> PyResult<Option<ReadArray<'py>>> {
    let connectors = PyList::empty(py);
    let tasks = PyList::empty(py);
    let int = |p: usize, n: usize| -> Option<&[u8]> { buf.get(p..p.checked_add(n)?) };
    let Some(count) = int(pos, 4).map(|b| i32::from_be_bytes(b.try_into().unwrap())) else {
        return Ok(None);
    };
    let mut p = pos + 4;
    if count < 0 {
        return Ok(Some((connectors, tasks, p)));
    }
    for _ in 0..count {
        let Some(size) = int(p, 2).map(|b| i16::from_be_bytes(b.try_into().unwrap())) else {
            return Ok(None);
        };
        if size < 0 {
            return Ok(None);
        }
        let Some(name) = int(p + 2, size as usize) else {
            return Ok(None);
        };
        let Ok(name) = std::str::from_utf8(name) else {
            return Ok(None);
        };
        p += 2 + size as usize;
        let Some(n) = int(p, 4).map(|b| i32::from_be_bytes(b.try_into().unwrap())) else {
            return Ok(None);
        };
        if n < 0 {
            return Ok(None);
        }
        let Some(body) = int(p + 4, 4 * n as usize) else {
            return Ok(None);
        };
        p += 4 + 4 * n as usize;
        let connector = PyString::new(py, name);
        for k in 0..n as usize {
            let t = i32::from_be_bytes(body[4 * k..4 * k + 4].try_into().unwrap());
            if t == -1 {
                connectors.append(&connector)?;
            } else {
                tasks.append(task_id.call1((&connector, t))?)?;
            }
        }
    }
    Ok(Some((connectors, tasks, p)))
}
