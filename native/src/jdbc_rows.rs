//! The JDBC sink's rows straight from native records: column values (`rows`) and the whole
//! PostgreSQL binary COPY stream (`copy_binary`), without Python records in between.
//!
//! A column comes from a *source*, as `BufferedRecords._native_row_sources` names them: (0)
//! the topic, (1) the partition, (2) the offset, (3, name) a field of the value (a struct, or
//! a map when schemaless), (4, name) a field of the key, (5) the key itself, (6, name) the
//! key's field or, for a key that is neither a struct nor a map, the key itself. A field
//! never put is null, as the Python row functions give it.
//!
//! COPY's binary format per column type, for the values Connect holds there: int2/int4/int8,
//! float4/float8, bool, text/varchar/bpchar, bytea, numeric (a Decimal: base-10000 digits, the
//! value's own scale as display scale), date (days since 2000-01-01), time (microseconds since
//! midnight), timestamp/timestamptz (microseconds since 2000-01-01; the sink's `db.timezone` is
//! UTC, so the wall time is the UTC one). Whatever else -- another pairing, a value of another
//! class, a Python object -- makes the call return None, and the caller writes the rows the
//! Python way (psycopg), which converts or refuses them as it always has.

use crate::model::record::{Meta, NRecord};
use crate::model::value::{Dec, Value};
use crate::pyconv::to_py::to_py;
use pyo3::prelude::*;

const SIGNATURE: &[u8] = b"PGCOPY\n\xff\r\n\0\x00\x00\x00\x00\x00\x00\x00\x00";
const TRAILER: &[u8] = b"\xff\xff";
/// 2000-01-01 in days and microseconds since 1970-01-01.
const PG_EPOCH_DAYS: i64 = 10_957;
const PG_EPOCH_US: i64 = 946_684_800_000_000;

pub enum Source {
    Topic,
    Partition,
    Offset,
    ValueField(String),
    KeyField(String),
    Key,
    KeyFieldOrKey(String),
}

impl Source {
    pub fn parse(kind: u8, name: Option<String>) -> Option<Source> {
        Some(match (kind, name) {
            (0, _) => Source::Topic,
            (1, _) => Source::Partition,
            (2, _) => Source::Offset,
            (3, Some(n)) => Source::ValueField(n),
            (4, Some(n)) => Source::KeyField(n),
            (5, _) => Source::Key,
            (6, Some(n)) => Source::KeyFieldOrKey(n),
            _ => return None,
        })
    }
}

/// Where a column found its field in the last struct schema it read (schemas of a batch
/// repeat: the field is looked up by name once per schema, then read by index).
#[derive(Default, Clone)]
pub struct At {
    schema: usize,
    index: usize,
}

/// A column's value for `rec` (borrowed, or made for the record's metadata); None when the
/// record does not fit (a value of the wrong kind: the Python row function says why).
fn field<'a>(holder: &'a Value, name: &str, schemaless: bool, is_value: bool, at: &mut At) -> Option<&'a Value> {
    const NULL: &Value = &Value::Null;
    match holder {
        Value::Struct(sv) => {
            let key = std::sync::Arc::as_ptr(&sv.schema) as usize;
            if at.schema != key {
                at.index = sv.schema.field_index(name)?;
                at.schema = key;
            }
            Some(&sv.values[at.index])
        }
        Value::Map(entries) if schemaless || !is_value => Some(
            entries
                .iter()
                .find(|(k, _)| matches!(k, Value::Str(s) if s == name))
                .map(|(_, v)| v)
                .unwrap_or(NULL),
        ),
        _ => None,
    }
}

pub enum Cell<'a> {
    Ref(&'a Value),
    Own(Value),
}

impl Cell<'_> {
    pub fn get(&self) -> &Value {
        match self {
            Cell::Ref(v) => v,
            Cell::Own(v) => v,
        }
    }
}

pub fn cell<'a>(rec: &'a NRecord, src: &Source, schemaless: bool, at: &mut At) -> Option<Cell<'a>> {
    Some(match src {
        Source::Topic => Cell::Own(Value::Str(rec.topic.name.clone())),
        Source::Partition => Cell::Own(match rec.partition {
            Some(p) => Value::I32(p),
            None => Value::Null,
        }),
        Source::Offset => match &rec.meta {
            Meta::Sink(m) => Cell::Own(Value::I64(m.offset)),
            Meta::Source(_) => return None,
        },
        Source::ValueField(n) => Cell::Ref(field(&rec.value, n, schemaless, true, at)?),
        Source::KeyField(n) => Cell::Ref(field(&rec.key, n, schemaless, false, at)?),
        Source::Key => Cell::Ref(&rec.key),
        Source::KeyFieldOrKey(n) => match &rec.key {
            Value::Struct(_) | Value::Map(_) => Cell::Ref(field(&rec.key, n, schemaless, false, at)?),
            k => Cell::Ref(k),
        },
    })
}

/// The row tuple of `rec` (Python objects), or None when it does not fit.
pub fn row_to_py(
    py: Python<'_>,
    rec: &NRecord,
    sources: &[Source],
    schemaless: bool,
    ats: &mut [At],
) -> PyResult<Option<Py<PyAny>>> {
    let mut items = Vec::with_capacity(sources.len());
    for (s, at) in sources.iter().zip(ats.iter_mut()) {
        let Some(c) = cell(rec, s, schemaless, at) else {
            return Ok(None);
        };
        if c.get().holds_py() {
            return Ok(None);
        }
        items.push(to_py(py, c.get(), !schemaless, None)?);
    }
    let t = pyo3::types::PyTuple::new(py, items.iter().map(|o| o.bind(py)))?;
    Ok(Some(t.into_any().unbind()))
}

#[derive(Clone)]
pub enum Col {
    /// a one-dimensional array: its element column and the element type's OID
    Array(Box<Col>, u32),
    Int(i64, i64, usize),
    Float4,
    Float8,
    Bool,
    Text,
    Bytea,
    Numeric,
    Date,
    Time,
    Timestamp,
}

/// The element type OID of the array types whose elements this module writes.
fn element_of(array_oid: u32) -> Option<u32> {
    Some(match array_oid {
        1005 => 21,
        1007 => 23,
        1016 => 20,
        1021 => 700,
        1022 => 701,
        1000 => 16,
        1009 => 25,
        1015 => 1043,
        1001 => 17,
        1231 => 1700,
        1182 => 1082,
        1183 => 1083,
        1115 => 1114,
        1185 => 1184,
        _ => return None,
    })
}

pub fn col_of(oid: u32) -> Option<Col> {
    if let Some(elem) = element_of(oid) {
        return Some(Col::Array(Box::new(col_of(elem)?), elem));
    }
    Some(match oid {
        21 => Col::Int(i16::MIN as i64, i16::MAX as i64, 2),
        23 => Col::Int(i32::MIN as i64, i32::MAX as i64, 4),
        20 => Col::Int(i64::MIN, i64::MAX, 8),
        700 => Col::Float4,
        701 => Col::Float8,
        16 => Col::Bool,
        25 | 1043 | 1042 => Col::Text,
        17 => Col::Bytea,
        1700 => Col::Numeric,
        1082 => Col::Date,
        1083 => Col::Time,
        1114 | 1184 => Col::Timestamp,
        _ => return None,
    })
}

/// PostgreSQL's binary numeric of a Decimal: base-10000 digits around the decimal point.
fn push_numeric(buf: &mut Vec<u8>, d: &Dec) -> bool {
    let neg = d.unscaled < 0;
    let mut mag = d.unscaled.unsigned_abs();
    // digits of the integer mag, then the point `scale` digits from the right
    let mut scale = d.scale as i64;
    let dscale = scale.max(0);
    if scale < 0 {
        // 15E+3: append zeros to reach scale 0
        for _ in 0..(-scale) {
            match mag.checked_mul(10) {
                Some(m) => mag = m,
                None => return false,
            }
        }
        scale = 0;
    }
    // pad the fraction to a multiple of 4 digits
    let pad = (4 - scale % 4) % 4;
    for _ in 0..pad {
        match mag.checked_mul(10) {
            Some(m) => mag = m,
            None => return false,
        }
    }
    let frac_groups = (scale + pad) / 4;
    // base-10000 groups, least significant first (an i128 has at most 39 digits + padding)
    let mut groups = [0i16; 16];
    let mut total = 0usize;
    while mag > 0 {
        groups[total] = (mag % 10_000) as i16;
        mag /= 10_000;
        total += 1;
    }
    // the first `frac_groups` are after the point
    let mut weight = total as i64 - frac_groups - 1;
    // strip trailing zero groups (least significant) and leading zero groups
    let mut lo = 0usize;
    while lo < total && groups[lo] == 0 {
        lo += 1;
    }
    let mut hi = total;
    while hi > lo && groups[hi - 1] == 0 {
        hi -= 1;
        weight -= 1;
    }
    let digits = &groups[lo..hi];
    if digits.is_empty() {
        weight = 0;
    }
    if dscale > 0x3fff {
        return false;
    }
    let size = 8 + 2 * digits.len();
    buf.extend_from_slice(&(size as i32).to_be_bytes());
    buf.extend_from_slice(&(digits.len() as i16).to_be_bytes());
    buf.extend_from_slice(&(weight as i16).to_be_bytes());
    buf.extend_from_slice(&(if neg && !digits.is_empty() { 0x4000u16 } else { 0 }).to_be_bytes());
    buf.extend_from_slice(&(dscale as i16).to_be_bytes());
    for g in digits.iter().rev() {
        buf.extend_from_slice(&g.to_be_bytes());
    }
    true
}

/// Append one field (length-prefixed); false when the value is not one this column takes.
pub fn copy_field(buf: &mut Vec<u8>, col: &Col, v: &Value) -> bool {
    if v.is_null() {
        buf.extend_from_slice(b"\xff\xff\xff\xff");
        return true;
    }
    match (col, v) {
        (Col::Array(elem, elem_oid), Value::Array(items)) => {
            // ndim, has-null flag, element type, then (size, lower bound 1) per dimension
            let at = buf.len();
            buf.extend_from_slice(&[0, 0, 0, 0]);
            let has_null = items.iter().any(Value::is_null);
            if items.is_empty() {
                buf.extend_from_slice(&0i32.to_be_bytes());
                buf.extend_from_slice(&0i32.to_be_bytes());
                buf.extend_from_slice(&elem_oid.to_be_bytes());
            } else {
                buf.extend_from_slice(&1i32.to_be_bytes());
                buf.extend_from_slice(&(has_null as i32).to_be_bytes());
                buf.extend_from_slice(&elem_oid.to_be_bytes());
                buf.extend_from_slice(&(items.len() as i32).to_be_bytes());
                buf.extend_from_slice(&1i32.to_be_bytes());
                for x in items {
                    if matches!(x, Value::Array(_)) || !copy_field(buf, elem, x) {
                        return false;
                    }
                }
            }
            let size = buf.len() - at - 4;
            if size > i32::MAX as usize {
                return false;
            }
            buf[at..at + 4].copy_from_slice(&(size as i32).to_be_bytes());
        }
        (&Col::Int(lo, hi, width), _) => {
            let Some(n) = v.as_integer() else { return false };
            if n < lo || n > hi {
                return false;
            }
            buf.extend_from_slice(&(width as i32).to_be_bytes());
            buf.extend_from_slice(&n.to_be_bytes()[8 - width..]);
        }
        (Col::Float4, Value::F32(f)) => {
            buf.extend_from_slice(&4i32.to_be_bytes());
            buf.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        (Col::Float4, Value::F64(f)) => {
            buf.extend_from_slice(&4i32.to_be_bytes());
            buf.extend_from_slice(&(*f as f32).to_bits().to_be_bytes());
        }
        (Col::Float8, Value::F64(f)) => {
            buf.extend_from_slice(&8i32.to_be_bytes());
            buf.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        (Col::Float8, Value::F32(f)) => {
            buf.extend_from_slice(&8i32.to_be_bytes());
            buf.extend_from_slice(&(*f as f64).to_bits().to_be_bytes());
        }
        (Col::Bool, Value::Bool(b)) => {
            buf.extend_from_slice(&1i32.to_be_bytes());
            buf.push(*b as u8);
        }
        (Col::Text, Value::Str(s)) => {
            if s.len() > i32::MAX as usize || s.as_bytes().contains(&0) {
                return false; // PostgreSQL text cannot hold NUL: psycopg says so
            }
            buf.extend_from_slice(&(s.len() as i32).to_be_bytes());
            buf.extend_from_slice(s.as_bytes());
        }
        (Col::Bytea, Value::Bytes(b)) => {
            if b.len() > i32::MAX as usize {
                return false;
            }
            buf.extend_from_slice(&(b.len() as i32).to_be_bytes());
            buf.extend_from_slice(b);
        }
        (Col::Numeric, Value::Decimal(d)) => return push_numeric(buf, d),
        (Col::Date, Value::Date(days)) => {
            buf.extend_from_slice(&4i32.to_be_bytes());
            buf.extend_from_slice(&((*days as i64 - PG_EPOCH_DAYS) as i32).to_be_bytes());
        }
        (Col::Time, Value::Time(ms)) => {
            buf.extend_from_slice(&8i32.to_be_bytes());
            buf.extend_from_slice(&(*ms as i64 * 1000).to_be_bytes());
        }
        (Col::Timestamp, Value::Timestamp(ms)) => {
            let Some(us) = ms.checked_mul(1000) else { return false };
            buf.extend_from_slice(&8i32.to_be_bytes());
            buf.extend_from_slice(&(us - PG_EPOCH_US).to_be_bytes());
        }
        _ => return false,
    }
    true
}

/// The binary COPY stream's signature and trailer.
pub fn copy_start(buf: &mut Vec<u8>) {
    buf.extend_from_slice(SIGNATURE);
}

pub fn copy_end(buf: &mut Vec<u8>) {
    buf.extend_from_slice(TRAILER);
}

/// Append one row; false when it does not fit (the caller then gives up on native COPY).
pub fn copy_row(
    buf: &mut Vec<u8>,
    rec: &NRecord,
    sources: &[Source],
    cols: &[Col],
    schemaless: bool,
    ats: &mut [At],
) -> bool {
    buf.extend_from_slice(&(cols.len() as i16).to_be_bytes());
    for ((s, col), at) in sources.iter().zip(cols).zip(ats.iter_mut()) {
        let Some(c) = cell(rec, s, schemaless, at) else { return false };
        if !copy_field(buf, col, c.get()) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(unscaled: i128, scale: i32) -> Vec<u8> {
        let mut b = Vec::new();
        assert!(push_numeric(&mut b, &Dec { unscaled, scale }));
        b[4..].to_vec()
    }

    fn words(b: &[u8]) -> Vec<i16> {
        b.chunks(2).map(|c| i16::from_be_bytes([c[0], c[1]])).collect()
    }

    #[test]
    fn numerics() {
        // 123.45: digits [123, 4500], weight 0, dscale 2
        assert_eq!(words(&numeric(12345, 2)), vec![2, 0, 0, 2, 123, 4500]);
        // -0.05: digits [500], weight -1
        assert_eq!(words(&numeric(-5, 2)), vec![1, -1, 0x4000, 2, 500]);
        // 0.00
        assert_eq!(words(&numeric(0, 2)), vec![0, 0, 0, 2]);
        // 10000: digits [1], weight 1
        assert_eq!(words(&numeric(10000, 0)), vec![1, 1, 0, 0, 1]);
        // 1.5E+3 = 1500
        assert_eq!(words(&numeric(15, -2)), vec![1, 0, 0, 0, 1500]);
    }
}
