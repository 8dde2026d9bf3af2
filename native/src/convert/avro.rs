//! The native AvroConverter (Confluent's `io.confluent.connect.avro.AvroConverter`): the
//! schema-registry wire format around Avro's binary encoding, both ways, for the schemas whose
//! plan the Python converter hands over.
//!
//! A record is `0x00`, the schema id (4 bytes, big-endian), then the Avro binary datum. What the
//! native code needs to know of a schema id or a Connect schema is asked of the Python converter
//! once per topic and remembered -- per topic, because the registry subject (Confluent's
//! `TopicNameStrategy`: `<topic>-value`) depends on it, and with the subject the id a Connect
//! schema is written with and the version a schema id is read with:
//!
//! * `resolve(topic, schema_id) -> (Schema, plan) | None` for decoding: the Connect schema
//!   AvroData maps the writer schema to, and the plan
//!   (`kconnect.converters.avro.native_plan.plan_for`) of how that Avro schema is laid out in
//!   Connect terms. None (or a plan of None) means the Python path does every record with this
//!   id on this topic.
//! * `prefix_of(topic, schema) -> (prefix, plan) | None` for encoding: the 5-byte head of the
//!   schema registered for this Connect schema on this topic, and the plan of that Avro schema.
//!
//! A record given no topic (a header, `decode_values` / `encode_values` called without one) is
//! always handed back.
//!
//! A plan is a tree of Python tuples (documented in `native_plan.py`), compiled here against the
//! Connect schema it stands for into `Node`s: each node knows the Avro encoding and the Connect
//! type (INT8 or Date over an Avro `int`...), so values are read straight into the native record
//! model and written straight from it. Whatever the plan does not describe exactly -- a
//! truncated or overlong datum, trailing bytes, a union index out of range, invalid UTF-8, a
//! value of another type than its schema's, a null struct field with a default, an int beyond
//! its Connect type -- is `Fallback`: the Python path converts the record or raises
//! Confluent's error.
//!
//! Schemaless values (no Connect schema) are Confluent's recursive `Anything` record (the plan
//! `("anything",)`), read into and written from the values the Python path holds (see
//! "schemaless values" below).
//!
//! Maps come out in the iteration order of the Java maps AvroData builds: decoding, a
//! `HashMap<Utf8, _>` sized by the first block's count (Avro's `GenericDatumReader`) copied into a
//! `HashMap<String, _>` sized by the entry count (AvroData), or for maps written as arrays of
//! key/value records a `HashMap<Object, _>` sized by the entry count; encoding, the entries of a
//! string-keyed map are written in the order of AvroData's `new HashMap<>()` of them.

use crate::java::hash::{hash_code, string_hash, table_size, MapKind};
use crate::json::read::{Fallback, R};
use crate::json::write::twos_complement;
use crate::model::pyobj::PyObj;
use crate::model::record::TopicName;
use crate::model::schema::{Logical, NSchema, SchemaRef, Ty};
use crate::model::value::{Bytes, Dec, Str, StructVal, Value};
use crate::pyconv::civil;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

const MS_PER_DAY: i64 = 86_400_000;
/// Remembered schema ids / Connect schemas before the caches start over.
const CACHE_LIMIT: usize = 10_000;

/// The Connect value an Avro `int` becomes.
#[derive(Clone, Copy)]
enum IntAs {
    I8,
    I16,
    I32,
    Date,
    Time,
}

/// The Connect value an Avro `long` becomes.
#[derive(Clone, Copy)]
enum LongAs {
    I64,
    Timestamp,
}

enum Op {
    Int(IntAs),
    Long(LongAs),
    Float,
    Double,
    Boolean,
    Str,
    /// An Avro enum read as (and written from) a Connect STRING: its symbols.
    Enum(Vec<Str>),
    Bytes,
    Fixed(usize),
    /// A Connect Decimal over Avro `bytes` (`fixed` 0) or `fixed` of this size.
    Decimal { scale: i32, fixed: usize },
    Record(Vec<Node>),
    /// A union of `null` (at `null_index`, 0 or 1) and the inner type.
    Optional { null_index: u8, inner: Box<Node> },
    Array(Box<Node>),
    /// An Avro map: a Connect MAP with required STRING keys.
    Map(Box<Node>),
    /// An array of `{key, value}` records: any other Connect MAP.
    MapEntries(Box<Node>, Box<Node>),
}

pub struct Node {
    op: Op,
    /// The Connect schema of the values at this node.
    schema: SchemaRef,
    /// The fewest bytes a datum of this node takes (0: an empty record, a fixed(0)).
    min_size: usize,
}

/// Items of no bytes (empty records, fixed(0)) an array or map block may hold before the
/// count is taken for nonsense (or a bomb) and the record left to the Python path.
const MAX_EMPTY_ITEMS: usize = 100_000;

fn min_size(op: &Op) -> usize {
    match op {
        Op::Float => 4,
        Op::Double => 8,
        Op::Fixed(n) => *n,
        Op::Decimal { fixed, .. } => (*fixed).max(1),
        Op::Record(fields) => fields.iter().map(|f| f.min_size).sum(),
        _ => 1,
    }
}

/// What a schema id or Connect schema compiles to: its wire prefix (encoding) and the plan's
/// root.
struct Compiled {
    prefix: Box<[u8]>,
    root: Root,
}

enum Root {
    /// Values of this Connect schema, laid out as the node says.
    Typed(SchemaRef, Node),
    /// Schemaless values (no Connect schema) in Confluent's `Anything` record.
    Anything,
}

fn item<'py>(t: &Bound<'py, PyTuple>, i: usize) -> Option<Bound<'py, PyAny>> {
    t.get_item(i).ok()
}

/// Compile the plan `plan` (a tuple) for values of `s`; None when the plan is malformed or does
/// not fit the Connect schema (every record of it then takes the Python path).
fn compile(plan: &Bound<'_, PyAny>, s: &SchemaRef, depth: u32) -> Option<Node> {
    if depth > 200 || s.misnamed {
        return None;
    }
    let t = plan.cast::<PyTuple>().ok()?;
    let tag: String = item(t, 0)?.extract().ok()?;
    let n = t.len();
    let op = match (tag.as_str(), n) {
        ("optional", 3) => {
            let null_index: u8 = item(t, 1)?.extract().ok()?;
            if null_index > 1 {
                return None;
            }
            let inner = compile(&item(t, 2)?, s, depth + 1)?;
            Op::Optional {
                null_index,
                inner: Box::new(inner),
            }
        }
        ("int", 1) => Op::Int(match (s.ty, s.logical) {
            (Ty::Int8, Logical::None) => IntAs::I8,
            (Ty::Int16, Logical::None) => IntAs::I16,
            (Ty::Int32, Logical::None) => IntAs::I32,
            (Ty::Int32, Logical::Date) => IntAs::Date,
            (Ty::Int32, Logical::Time) => IntAs::Time,
            _ => return None,
        }),
        ("long", 1) => Op::Long(match (s.ty, s.logical) {
            (Ty::Int64, Logical::None) => LongAs::I64,
            (Ty::Int64, Logical::Timestamp) => LongAs::Timestamp,
            _ => return None,
        }),
        ("float", 1) if s.ty == Ty::Float32 => Op::Float,
        ("double", 1) if s.ty == Ty::Float64 => Op::Double,
        ("boolean", 1) if s.ty == Ty::Boolean => Op::Boolean,
        ("string", 1) if s.ty == Ty::String => Op::Str,
        ("enum", 2) if s.ty == Ty::String => {
            let mut symbols = Vec::new();
            for x in item(t, 1)?.try_iter().ok()? {
                let x: String = x.ok()?.extract().ok()?;
                symbols.push(Str::new(x));
            }
            Op::Enum(symbols)
        }
        ("bytes", 1) if s.ty == Ty::Bytes && s.logical == Logical::None => Op::Bytes,
        ("fixed", 2) if s.ty == Ty::Bytes && s.logical == Logical::None => {
            Op::Fixed(item(t, 1)?.extract().ok()?)
        }
        ("decimal", 3) => {
            let scale: i32 = item(t, 1)?.extract().ok()?;
            let fixed: usize = item(t, 2)?.extract().ok()?;
            if s.logical != Logical::Decimal(Some(scale)) {
                return None;
            }
            Op::Decimal { scale, fixed }
        }
        ("record", 2) if s.ty == Ty::Struct => {
            let fields = item(t, 1)?;
            let fields = fields.cast::<PyTuple>().ok()?;
            if fields.len() != s.fields.len() {
                return None;
            }
            let mut nodes = Vec::with_capacity(fields.len());
            for (f, p) in s.fields.iter().zip(fields.iter()) {
                nodes.push(compile(&p, &f.schema, depth + 1)?);
            }
            Op::Record(nodes)
        }
        ("array", 2) if s.ty == Ty::Array => {
            Op::Array(Box::new(compile(&item(t, 1)?, s.value.as_ref()?, depth + 1)?))
        }
        ("map", 2) if s.ty == Ty::Map => {
            let k = s.key.as_ref()?;
            if k.ty != Ty::String || k.optional || k.misnamed {
                return None;
            }
            Op::Map(Box::new(compile(&item(t, 1)?, s.value.as_ref()?, depth + 1)?))
        }
        ("map_entries", 3) if s.ty == Ty::Map => Op::MapEntries(
            Box::new(compile(&item(t, 1)?, s.key.as_ref()?, depth + 1)?),
            Box::new(compile(&item(t, 2)?, s.value.as_ref()?, depth + 1)?),
        ),
        _ => return None,
    };
    Some(Node {
        min_size: min_size(&op),
        op,
        schema: s.clone(),
    })
}

// ---- reading -------------------------------------------------------------------------------

struct Rd<'a> {
    b: &'a [u8],
    i: usize,
}

/// `java.util.HashMap`'s spread of a hash.
#[inline]
fn spread(h: i32) -> usize {
    let h = h as u32;
    (h ^ (h >> 16)) as usize
}

/// Avro's `Utf8.hashCode`: over the UTF-8 bytes, as Java's signed bytes.
fn utf8_hash(s: &str) -> i32 {
    let mut h: i32 = 0;
    for &b in s.as_bytes() {
        h = h.wrapping_mul(31).wrapping_add(b as i8 as i32);
    }
    h
}

impl<'a> Rd<'a> {
    #[inline]
    fn remaining(&self) -> usize {
        self.b.len() - self.i
    }

    /// A zig-zag varint of at most `max` bytes (5 for an int, 10 for a long).
    #[inline]
    fn varint(&mut self, max: usize) -> R<i64> {
        let mut acc: u64 = 0;
        let mut shift = 0u32;
        for k in 0..max {
            let b = *self.b.get(self.i).ok_or(Fallback)?;
            self.i += 1;
            if k == 9 && b > 1 {
                return Err(Fallback); // beyond 64 bits
            }
            acc |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok((acc >> 1) as i64 ^ -((acc & 1) as i64));
            }
            shift += 7;
        }
        Err(Fallback) // Java's "Invalid int/long encoding"
    }

    #[inline]
    fn long(&mut self) -> R<i64> {
        self.varint(10)
    }

    #[inline]
    fn int(&mut self) -> R<i32> {
        i32::try_from(self.varint(5)?).map_err(|_| Fallback)
    }

    #[inline]
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        if n > self.remaining() {
            return Err(Fallback);
        }
        let s = &self.b[self.i..self.i + n];
        self.i += n;
        Ok(s)
    }

    /// A `bytes`/`string` length and its bytes.
    #[inline]
    fn sized(&mut self) -> R<&'a [u8]> {
        let n = self.long()?;
        let n = usize::try_from(n).map_err(|_| Fallback)?;
        self.take(n)
    }

    #[inline]
    fn str(&mut self) -> R<&'a str> {
        std::str::from_utf8(self.sized()?).map_err(|_| Fallback)
    }

    /// The item count of the next array or map block (0: the end); a negative count is followed
    /// by the block's size in bytes, which readers skip over. `item_size`: the fewest bytes an
    /// item takes.
    #[inline]
    fn block(&mut self, item_size: usize) -> R<usize> {
        let c = self.long()?;
        let c = if c < 0 {
            self.long()?;
            c.checked_neg().ok_or(Fallback)?
        } else {
            c
        };
        let c = usize::try_from(c).map_err(|_| Fallback)?;
        // more items than the bytes left can hold: truncated, nonsense or a bomb
        let most = match item_size {
            0 => MAX_EMPTY_ITEMS,
            n => self.remaining() / n,
        };
        if c > most {
            return Err(Fallback);
        }
        Ok(c)
    }

    fn value(&mut self, node: &Node) -> R<Value> {
        Ok(match &node.op {
            Op::Optional { null_index, inner } => {
                let branch = self.int()?;
                if branch == *null_index as i32 {
                    if !node.schema.optional {
                        return Err(Fallback); // AvroData: "null value for non-optional schema"
                    }
                    Value::Null
                } else if branch == 1 - *null_index as i32 {
                    self.value(inner)?
                } else {
                    return Err(Fallback);
                }
            }
            Op::Int(how) => {
                let n = self.int()?;
                match how {
                    IntAs::I32 => Value::I32(n),
                    // Java narrows with byteValue()/shortValue(); the Python path decides
                    IntAs::I8 => Value::I8(i8::try_from(n).map_err(|_| Fallback)?),
                    IntAs::I16 => Value::I16(i16::try_from(n).map_err(|_| Fallback)?),
                    IntAs::Date => {
                        if !(civil::MIN_DAYS..=civil::MAX_DAYS).contains(&(n as i64)) {
                            return Err(Fallback);
                        }
                        Value::Date(n)
                    }
                    IntAs::Time => {
                        if !(0..=MS_PER_DAY).contains(&(n as i64)) {
                            return Err(Fallback); // Time.toLogical refuses it
                        }
                        Value::Time((n as i64 % MS_PER_DAY) as i32)
                    }
                }
            }
            Op::Long(how) => {
                let n = self.long()?;
                match how {
                    LongAs::I64 => Value::I64(n),
                    LongAs::Timestamp => {
                        let days = n.div_euclid(MS_PER_DAY);
                        if !(civil::MIN_DAYS..=civil::MAX_DAYS).contains(&days) {
                            return Err(Fallback);
                        }
                        Value::Timestamp(n)
                    }
                }
            }
            Op::Float => Value::F32(f32::from_le_bytes(self.take(4)?.try_into().unwrap())),
            Op::Double => Value::F64(f64::from_le_bytes(self.take(8)?.try_into().unwrap())),
            Op::Boolean => match self.take(1)?[0] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                _ => return Err(Fallback), // Java reads it as false, fastavro as true
            },
            Op::Str => Value::Str(Str::new(self.str()?)),
            Op::Enum(symbols) => {
                let i = usize::try_from(self.int()?).map_err(|_| Fallback)?;
                Value::Str(symbols.get(i).ok_or(Fallback)?.clone())
            }
            // AvroData hands both on as `ByteBuffer.wrap(...)`
            Op::Bytes => Value::Bytes(Bytes::Buffer(Arc::from(self.sized()?))),
            Op::Fixed(n) => Value::Bytes(Bytes::Buffer(Arc::from(self.take(*n)?))),
            Op::Decimal { scale, fixed } => {
                let mut raw = if *fixed == 0 { self.sized()? } else { self.take(*fixed)? };
                // sign extension (a wide fixed) adds nothing to the value
                while raw.len() > 16
                    && ((raw[0] == 0 && raw[1] & 0x80 == 0) || (raw[0] == 0xff && raw[1] & 0x80 != 0))
                {
                    raw = &raw[1..];
                }
                // new BigInteger(byte[]) refuses no bytes; beyond 128 bits: the Python path
                if raw.is_empty() || raw.len() > 16 {
                    return Err(Fallback);
                }
                let mut v: i128 = if raw[0] & 0x80 != 0 { -1 } else { 0 };
                for &b in raw {
                    v = (v << 8) | b as i128;
                }
                Value::Decimal(Box::new(Dec {
                    unscaled: v,
                    scale: *scale,
                }))
            }
            Op::Record(fields) => {
                let mut values = Vec::with_capacity(fields.len());
                for f in fields {
                    values.push(self.value(f)?);
                }
                Value::Struct(Box::new(StructVal {
                    schema: node.schema.clone(),
                    values,
                }))
            }
            Op::Array(inner) => {
                let mut items = Vec::new();
                loop {
                    let c = self.block(inner.min_size)?;
                    if c == 0 {
                        break;
                    }
                    items.reserve(c);
                    for _ in 0..c {
                        items.push(self.value(inner)?);
                    }
                }
                Value::Array(items)
            }
            Op::Map(inner) => self.string_map(inner)?,
            Op::MapEntries(k, x) => {
                let mut entries: Vec<(Value, Value)> = Vec::new();
                loop {
                    let c = self.block(k.min_size + x.min_size)?;
                    if c == 0 {
                        break;
                    }
                    entries.reserve(c);
                    for _ in 0..c {
                        let key = self.value(k)?;
                        if matches!(
                            key,
                            Value::Struct(_) | Value::Array(_) | Value::Map(_) | Value::Bytes(_)
                        ) {
                            return Err(Fallback); // keys Python cannot hash
                        }
                        let v = self.value(x)?;
                        entries.push((key, v));
                    }
                }
                let n = entries.len();
                if n > 1 {
                    let hashes: Vec<i32> = entries.iter().map(|(k, _)| hash_code(k).unwrap_or(0)).collect();
                    if has_duplicate_keys(&entries, &hashes) {
                        return Err(Fallback); // HashMap.put keeps the last value
                    }
                    let mask = table_size(MapKind::HashWithCapacity(n), n) - 1;
                    let mut order: Vec<usize> = (0..n).collect();
                    order.sort_by_key(|&i| spread(hashes[i]) & mask);
                    entries = reorder(entries, &order);
                }
                Value::Map(entries)
            }
        })
    }

    /// An Avro map, in the order AvroData's copy of Avro's map iterates.
    fn string_map(&mut self, inner: &Node) -> R<Value> {
        let mut entries: Vec<(Value, Value)> = Vec::new();
        let mut first_block = None;
        loop {
            let c = self.block(1 + inner.min_size)?;
            first_block.get_or_insert(c);
            if c == 0 {
                break;
            }
            entries.reserve(c);
            for _ in 0..c {
                let k = Str::new(self.str()?);
                let v = self.value(inner)?;
                entries.push((Value::Str(k), v));
            }
        }
        let n = entries.len();
        if n < 2 {
            return Ok(Value::Map(entries));
        }
        let keys: Vec<&str> = entries
            .iter()
            .map(|(k, _)| match k {
                Value::Str(s) => s.as_str(),
                _ => unreachable!(),
            })
            .collect();
        let mut seen = HashSet::with_capacity(n);
        if !keys.iter().all(|k| seen.insert(*k)) {
            return Err(Fallback); // a repeated key: HashMap.put keeps the last value
        }
        // GenericDatumReader's HashMap<Utf8, _>(first block count), then AvroData's
        // HashMap<String, _>(n) filled in that map's order: sorted by the second map's bucket,
        // then the first's, then the order read.
        let mask1 = table_size(MapKind::HashWithCapacity(first_block.unwrap_or(n)), n) - 1;
        let mask2 = table_size(MapKind::HashWithCapacity(n), n) - 1;
        let ranks: Vec<(usize, usize)> = keys
            .iter()
            .map(|k| {
                let h2 = spread(string_hash(k)) & mask2;
                let h1 = spread(utf8_hash(k)) & mask1;
                (h2, h1)
            })
            .collect();
        drop(seen);
        if ranks.windows(2).all(|w| w[0] <= w[1]) {
            return Ok(Value::Map(entries));
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| ranks[i]);
        Ok(Value::Map(reorder(entries, &order)))
    }
}

// ---- schemaless values: Confluent's `Anything` record -------------------------------------
//
// A schemaless value (no Connect schema) is written as the record
// `io.confluent.connect.avro.Anything`: nine optional fields (unions of `null`, index 0, and one
// type), in this order: boolean, bytes, double, float, int, long, string, array (of Anything),
// map (an array of `MapEntry {key: Anything, value: Anything}`). A value sets one of them; none
// set is a null; reading, AvroData takes the first one set. The native values are what the Python
// path (`avro_to_connect._to_schemaless` / `avro_from_connect._from_schemaless`) holds: integers
// as `Long`s (from the `int` field too: a Python int is a Long there), doubles, strings, bytes,
// lists, and maps in the order of AvroData's `new HashMap<>(entry count)` of them -- and what
// the Python path decides otherwise (a `float` field, read as a Python float where Java holds a
// `Float`; bytes written; keys Python's dict would take for one) is left to it.

/// The fewest bytes an `Anything` takes: its nine union indexes.
const ANYTHING_MIN: usize = 9;
/// `Anything`s nested deeper than this are left to the Python path.
const ANYTHING_DEPTH: u32 = 200;
/// Unset fields of an `Anything` (union index 0 each).
const NULLS: [u8; ANYTHING_MIN] = [0; ANYTHING_MIN];

impl Rd<'_> {
    /// Whether the next optional field of an `Anything` is set.
    #[inline]
    fn present(&mut self) -> R<bool> {
        match self.b.get(self.i) {
            Some(0) => {
                self.i += 1;
                Ok(false)
            }
            Some(2) => {
                self.i += 1;
                Ok(true)
            }
            _ => match self.int()? {
                0 => Ok(false),
                1 => Ok(true),
                _ => Err(Fallback),
            },
        }
    }

    /// An `Anything` as the schemaless value AvroData makes of it.
    fn anything(&mut self, depth: u32) -> R<Value> {
        if depth > ANYTHING_DEPTH {
            return Err(Fallback);
        }
        // every field is read (the bytes must all be valid); the first one set is the value
        let mut got: Option<Value> = None;
        if self.present()? {
            let b = match self.take(1)?[0] {
                0 => false,
                1 => true,
                _ => return Err(Fallback), // Java reads it as false, fastavro as true
            };
            got.get_or_insert(Value::Bool(b));
        }
        if self.present()? {
            let b = self.sized()?;
            if got.is_none() {
                got = Some(Value::Bytes(Bytes::Buffer(Arc::from(b))));
            }
        }
        if self.present()? {
            let f = f64::from_le_bytes(self.take(8)?.try_into().unwrap());
            got.get_or_insert(Value::F64(f));
        }
        if self.present()? {
            return Err(Fallback); // a float: Java's Float, the Python path's double
        }
        if self.present()? {
            let n = self.int()?;
            got.get_or_insert(Value::I64(n as i64));
        }
        if self.present()? {
            let n = self.long()?;
            got.get_or_insert(Value::I64(n));
        }
        if self.present()? {
            let s = self.str()?;
            if got.is_none() {
                got = Some(Value::Str(Str::new(s)));
            }
        }
        if self.present()? {
            let mut items = Vec::new();
            loop {
                let c = self.block(ANYTHING_MIN)?;
                if c == 0 {
                    break;
                }
                items.reserve(c);
                for _ in 0..c {
                    items.push(self.anything(depth + 1)?);
                }
            }
            got.get_or_insert(Value::Array(items));
        }
        if self.present()? {
            let mut entries = Vec::new();
            loop {
                let c = self.block(2 * ANYTHING_MIN)?;
                if c == 0 {
                    break;
                }
                entries.reserve(c);
                for _ in 0..c {
                    let k = self.anything(depth + 1)?;
                    if !matches!(
                        k,
                        Value::Null | Value::Bool(_) | Value::I64(_) | Value::F64(_) | Value::Str(_)
                    ) {
                        // arrays and maps: AvroData refuses them; bytes: an identity hash
                        return Err(Fallback);
                    }
                    let v = self.anything(depth + 1)?;
                    entries.push((k, v));
                }
            }
            if got.is_none() {
                got = Some(Value::Map(presized_order(entries)?));
            }
        }
        Ok(got.unwrap_or(Value::Null))
    }
}

/// Schemaless map entries (read in this order) in the iteration order of AvroData's
/// `new HashMap<>(entry count)` filled with them.
fn presized_order(entries: Vec<(Value, Value)>) -> R<Vec<(Value, Value)>> {
    let n = entries.len();
    if n < 2 {
        return Ok(entries);
    }
    if has_python_duplicates(&entries)? {
        return Err(Fallback); // the Python path's dict keeps one of them
    }
    let mask = table_size(MapKind::HashWithCapacity(n), n) - 1;
    let mut buckets = Vec::with_capacity(n);
    for (k, _) in &entries {
        buckets.push(spread(hash_code(k).ok_or(Fallback)?) & mask);
    }
    if buckets.windows(2).all(|w| w[0] <= w[1]) {
        return Ok(entries);
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| buckets[i]);
    Ok(reorder(entries, &order))
}

/// A schemaless key as a Python dict compares it: numbers (booleans too) by value.
#[derive(PartialEq, Eq, Hash)]
enum PyKey<'a> {
    None,
    Int(i64),
    Float(u64),
    Str(&'a str),
}

/// Err for a key that is no scalar, or a NaN (equal to nothing, itself included).
fn py_key(v: &Value) -> R<PyKey<'_>> {
    const TWO_63: f64 = (1u64 << 63) as f64;
    let float = |x: f64| {
        if x.is_nan() {
            Err(Fallback)
        } else if x.fract() == 0.0 && (-TWO_63..TWO_63).contains(&x) {
            Ok(PyKey::Int(x as i64)) // 1.0 == 1, -0.0 == 0
        } else {
            Ok(PyKey::Float(x.to_bits()))
        }
    };
    Ok(match v {
        Value::Null => PyKey::None,
        Value::Bool(b) => PyKey::Int(*b as i64),
        Value::Str(s) => PyKey::Str(s.as_str()),
        Value::F64(x) => float(*x)?,
        Value::F32(x) => float(*x as f64)?,
        _ => PyKey::Int(v.as_integer().ok_or(Fallback)?),
    })
}

/// Whether two keys are one key to Python (`1`, `1.0` and `True`); Err for a key `py_key`
/// refuses.
fn has_python_duplicates(entries: &[(Value, Value)]) -> R<bool> {
    let keys = entries.iter().map(|(k, _)| py_key(k)).collect::<R<Vec<_>>>()?;
    if keys.len() <= 8 {
        return Ok(keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k)));
    }
    let mut seen = HashSet::with_capacity(keys.len());
    Ok(!keys.into_iter().all(|k| seen.insert(k)))
}

fn reorder(entries: Vec<(Value, Value)>, order: &[usize]) -> Vec<(Value, Value)> {
    let mut slots: Vec<Option<(Value, Value)>> = entries.into_iter().map(Some).collect();
    order.iter().map(|&i| slots[i].take().unwrap()).collect()
}

/// Whether two keys are equal as Java's `equals` of their objects (same hash first).
fn has_duplicate_keys(entries: &[(Value, Value)], hashes: &[i32]) -> bool {
    let mut by_hash: HashMap<i32, Vec<usize>> = HashMap::with_capacity(entries.len());
    for (i, h) in hashes.iter().enumerate() {
        let same = by_hash.entry(*h).or_default();
        if same.iter().any(|&j| same_key(&entries[i].0, &entries[j].0)) {
            return true;
        }
        same.push(i);
    }
    false
}

fn same_key(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Decimal(x), Value::Decimal(y)) => x == y,
        (Value::Date(x), Value::Date(y)) => x == y,
        (Value::Time(x), Value::Time(y)) => x == y,
        (Value::Timestamp(x), Value::Timestamp(y)) => x == y,
        _ => match (a.as_integer(), b.as_integer()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

// ---- writing -------------------------------------------------------------------------------

#[inline]
fn push_long(out: &mut Vec<u8>, n: i64) {
    let mut z = ((n << 1) ^ (n >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

#[inline]
fn push_sized(out: &mut Vec<u8>, b: &[u8]) {
    push_long(out, b.len() as i64);
    out.extend_from_slice(b);
}

fn write(node: &Node, v: &Value, out: &mut Vec<u8>) -> R<()> {
    if let Op::Optional { null_index, inner } = &node.op {
        if v.is_null() {
            if !node.schema.optional {
                return Err(Fallback);
            }
            push_long(out, *null_index as i64);
            return Ok(());
        }
        push_long(out, 1 - *null_index as i64);
        return write(inner, v, out);
    }
    match (&node.op, v) {
        (Op::Int(how), _) => {
            let n = match (how, v) {
                (IntAs::Date, Value::Date(d)) => *d as i64,
                (IntAs::Time, Value::Time(ms)) => *ms as i64,
                (IntAs::Date | IntAs::Time, _) => return Err(Fallback),
                _ => v.as_integer().ok_or(Fallback)?,
            };
            let (lo, hi) = node.schema.ty.int_range().ok_or(Fallback)?;
            if n < lo || n > hi {
                return Err(Fallback);
            }
            push_long(out, n);
        }
        (Op::Long(LongAs::Timestamp), Value::Timestamp(ms)) => push_long(out, *ms),
        (Op::Long(LongAs::I64), _) => push_long(out, v.as_integer().ok_or(Fallback)?),
        (Op::Float, Value::F32(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (Op::Float, Value::F64(f)) => out.extend_from_slice(&float32(*f)?.to_le_bytes()),
        (Op::Float, Value::Py(o)) => {
            // a float that is no float32: written rounded, as struct.pack("<f") does
            let p = o.as_ptr();
            if unsafe { pyo3::ffi::PyFloat_CheckExact(p) } == 0 {
                return Err(Fallback);
            }
            let f = unsafe { pyo3::ffi::PyFloat_AS_DOUBLE(p) };
            out.extend_from_slice(&float32(f)?.to_le_bytes());
        }
        (Op::Double, Value::F64(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (Op::Boolean, Value::Bool(b)) => out.push(*b as u8),
        (Op::Str, Value::Str(s)) => push_sized(out, s.as_bytes()),
        (Op::Enum(symbols), Value::Str(s)) => {
            let i = symbols.iter().position(|x| x == s).ok_or(Fallback)?;
            push_long(out, i as i64);
        }
        (Op::Bytes, Value::Bytes(b)) => push_sized(out, b),
        (Op::Fixed(n), Value::Bytes(b)) => {
            if b.len() != *n {
                return Err(Fallback);
            }
            out.extend_from_slice(b);
        }
        (Op::Decimal { scale, fixed }, Value::Decimal(d)) => {
            if d.scale != *scale {
                return Err(Fallback); // Decimal.fromLogical: "mismatching scale"
            }
            let raw = twos_complement(d.unscaled);
            if *fixed == 0 {
                push_sized(out, &raw);
            } else {
                if raw.len() > *fixed {
                    return Err(Fallback);
                }
                let pad = if raw[0] & 0x80 != 0 { 0xff } else { 0 };
                out.resize(out.len() + fixed - raw.len(), pad);
                out.extend_from_slice(&raw);
            }
        }
        (Op::Record(fields), Value::Struct(sv)) => {
            if !Arc::ptr_eq(&sv.schema, &node.schema)
                && sv.schema.py.as_ptr() != node.schema.py.as_ptr()
            {
                return Err(Fallback); // AvroData compares the schemas (or refuses)
            }
            for ((f, x), field) in fields.iter().zip(sv.values.iter()).zip(node.schema.fields.iter()) {
                if x.is_null() && field.schema.default_value().is_some() {
                    // Struct.get gives the default (unless ignore.default.for.nullables)
                    return Err(Fallback);
                }
                write(f, x, out)?;
            }
        }
        (Op::Array(inner), Value::Array(items)) => {
            if !items.is_empty() {
                push_long(out, items.len() as i64);
                for x in items {
                    write(inner, x, out)?;
                }
            }
            out.push(0);
        }
        (Op::Map(inner), Value::Map(entries)) => {
            let n = entries.len();
            if n > 0 {
                push_long(out, n as i64);
                // AvroData's new HashMap<>() of the entries, put in the Connect map's order
                let mask = table_size(MapKind::Hash, n) - 1;
                let mut buckets = Vec::with_capacity(n);
                for (k, _) in entries {
                    let Value::Str(k) = k else {
                        return Err(Fallback);
                    };
                    buckets.push(spread(string_hash(k)) & mask);
                }
                let mut order: Vec<usize> = (0..n).collect();
                if !buckets.windows(2).all(|w| w[0] <= w[1]) {
                    order.sort_by_key(|&i| buckets[i]);
                }
                for i in order {
                    let (Value::Str(k), x) = &entries[i] else {
                        unreachable!()
                    };
                    push_sized(out, k.as_bytes());
                    write(inner, x, out)?;
                }
            }
            out.push(0);
        }
        (Op::MapEntries(kn, xn), Value::Map(entries)) => {
            if !entries.is_empty() {
                push_long(out, entries.len() as i64);
                for (k, x) in entries {
                    write(kn, k, out)?;
                    write(xn, x, out)?;
                }
            }
            out.push(0);
        }
        _ => return Err(Fallback),
    }
    Ok(())
}

/// A double as a float32; a finite value beyond float32's range is refused (Python's
/// `struct.pack` raises OverflowError).
#[inline]
fn float32(f: f64) -> R<f32> {
    let g = f as f32;
    if f.is_finite() && !g.is_finite() {
        return Err(Fallback);
    }
    Ok(g)
}

/// A schemaless value as an `Anything` record, as the Python path writes it: integers of every
/// width in the `long` field, doubles in the `double` field, strings, lists, and maps in their
/// own order (a null inside a list or map: no field set). A `Float` is left to the Python path,
/// which writes the double its `Float32` object holds (not always a float32).
fn write_anything(v: &Value, out: &mut Vec<u8>, depth: u32) -> R<()> {
    if depth > ANYTHING_DEPTH {
        return Err(Fallback);
    }
    // the position of the field set: the fields before and after it are unset
    let at = match v {
        Value::Null => {
            out.extend_from_slice(&NULLS);
            return Ok(());
        }
        Value::Bool(_) => 0,
        Value::F64(_) => 2,
        Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => 5,
        Value::Str(_) => 6,
        Value::Array(_) => 7,
        Value::Map(_) => 8,
        // bytes, Decimals, dates, structs...: AvroData refuses them ("Unknown Java type")
        _ => return Err(Fallback),
    };
    out.extend_from_slice(&NULLS[..at]);
    out.push(2);
    match v {
        Value::Bool(b) => out.push(*b as u8),
        Value::F64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Str(s) => push_sized(out, s.as_bytes()),
        Value::Array(items) => {
            if !items.is_empty() {
                push_long(out, items.len() as i64);
                for x in items {
                    write_anything(x, out, depth + 1)?;
                }
            }
            out.push(0);
        }
        Value::Map(entries) => {
            // a Python dict of these keys would not hold them all (1 and True) or be no dict
            // (list keys); string keys are distinct in any native map
            if entries.iter().any(|(k, _)| !matches!(k, Value::Str(_)))
                && has_python_duplicates(entries)?
            {
                return Err(Fallback);
            }
            if !entries.is_empty() {
                push_long(out, entries.len() as i64);
                for (k, x) in entries {
                    write_anything(k, out, depth + 1)?;
                    write_anything(x, out, depth + 1)?;
                }
            }
            out.push(0);
        }
        _ => push_long(out, v.as_integer().ok_or(Fallback)?),
    }
    out.extend_from_slice(&NULLS[at + 1..]);
    Ok(())
}

// ---- the converter ---------------------------------------------------------------------------

/// What a schema id or Connect schema compiled to (None: the Python path does its records).
type Plan = Option<Arc<Compiled>>;

pub struct AvroState {
    resolve: PyObj,
    prefix_of: PyObj,
    /// (topic, schema id) -> its Connect schema and plan (None: the Python path does this id
    /// on this topic)
    by_id: HashMap<(Str, i32), Plan>,
    last_id: Option<(Str, i32, Plan)>,
    /// (topic, Connect schema by its Python object) -> its prefix and plan (None: the Python
    /// path)
    by_schema: HashMap<(Str, usize), (SchemaRef, Plan)>,
    last_schema: Option<(Str, SchemaRef, Plan)>,
    /// topic -> the prefix of the `Anything` schema for schemaless values (None: the Python
    /// path), once asked per topic
    schemaless: HashMap<Str, Plan>,
}

impl AvroState {
    pub fn new(resolve: PyObj, prefix_of: PyObj) -> AvroState {
        AvroState {
            resolve,
            prefix_of,
            by_id: HashMap::new(),
            last_id: None,
            by_schema: HashMap::new(),
            last_schema: None,
            schemaless: HashMap::new(),
        }
    }

    /// `resolve(topic, id)`'s answer compiled; Err when the call raised (not remembered: the
    /// Python path asks again and raises its own error).
    fn for_id(&mut self, py: Python<'_>, topic: &TopicName, id: i32) -> R<Plan> {
        if let Some((t, last, c)) = &self.last_id {
            if *last == id && *t == topic.name {
                return Ok(c.clone());
            }
        }
        let key = (topic.name.clone(), id);
        let c = match self.by_id.get(&key) {
            Some(c) => c.clone(),
            None => {
                let got = self
                    .resolve
                    .bind(py)
                    .call1((topic.py.bind(py), id))
                    .map_err(|_| Fallback)?;
                let c = compiled_of(&got, None);
                if self.by_id.len() >= CACHE_LIMIT {
                    self.by_id.clear();
                }
                self.by_id.insert(key, c.clone());
                c
            }
        };
        self.last_id = Some((topic.name.clone(), id, c.clone()));
        Ok(c)
    }

    /// `prefix_of(topic, schema)`'s answer compiled; Err when the call raised.
    fn for_schema(&mut self, py: Python<'_>, topic: &TopicName, s: &SchemaRef) -> R<Plan> {
        if let Some((t, last, c)) = &self.last_schema {
            if Arc::ptr_eq(last, s) && *t == topic.name {
                return Ok(c.clone());
            }
        }
        let key = (topic.name.clone(), s.py.as_ptr() as usize);
        let c = match self.by_schema.get(&key) {
            Some((_, c)) => c.clone(),
            None => {
                let got = self
                    .prefix_of
                    .bind(py)
                    .call1((topic.py.bind(py), s.py.bind(py)))
                    .map_err(|_| Fallback)?;
                let c = compiled_of(&got, Some(s));
                if self.by_schema.len() >= CACHE_LIMIT {
                    self.by_schema.clear();
                }
                // the entry holds the schema, so its object (the key) stays alive
                self.by_schema.insert(key, (s.clone(), c.clone()));
                c
            }
        };
        self.last_schema = Some((topic.name.clone(), s.clone(), c.clone()));
        Ok(c)
    }

    /// One record's bytes (None: a null) to (schema, value).
    pub fn decode(
        &mut self,
        py: Python<'_>,
        topic: Option<&TopicName>,
        data: Option<&[u8]>,
    ) -> R<(Option<SchemaRef>, Value)> {
        // no topic, no subject: the Python path (which knows it) does every record
        let topic = topic.ok_or(Fallback)?;
        let Some(data) = data else {
            return Ok((None, Value::Null));
        };
        if data.len() < 5 || data[0] != 0 {
            return Err(Fallback); // not the wire format: the Python path raises
        }
        let id = i32::from_be_bytes([data[1], data[2], data[3], data[4]]);
        let c = self.for_id(py, topic, id)?.ok_or(Fallback)?;
        let mut rd = Rd { b: &data[5..], i: 0 };
        let (schema, v) = match &c.root {
            Root::Typed(s, node) => (Some(s.clone()), rd.value(node)?),
            Root::Anything => (None, rd.anything(0)?),
        };
        if rd.i != rd.b.len() || v.is_null() {
            return Err(Fallback);
        }
        Ok((schema, v))
    }

    /// One (schema, value) to bytes; false for a null (no bytes).
    pub fn encode(
        &mut self,
        py: Python<'_>,
        topic: Option<&TopicName>,
        schema: Option<&SchemaRef>,
        v: &Value,
        out: &mut Vec<u8>,
    ) -> R<bool> {
        let topic = topic.ok_or(Fallback)?;
        let Some(s) = schema else {
            return if v.is_null() { Ok(false) } else { self.encode_schemaless(py, topic, v, out) };
        };
        if v.is_null() {
            return if s.optional { Ok(false) } else { Err(Fallback) };
        }
        let c = self.for_schema(py, topic, s)?.ok_or(Fallback)?;
        let Root::Typed(_, root) = &c.root else {
            return Err(Fallback);
        };
        let start = out.len();
        out.extend_from_slice(&c.prefix);
        if write(root, v, out).is_err() {
            out.truncate(start);
            return Err(Fallback);
        }
        Ok(true)
    }

    /// A schemaless value (not null) to bytes: an `Anything` record.
    fn encode_schemaless(
        &mut self,
        py: Python<'_>,
        topic: &TopicName,
        v: &Value,
        out: &mut Vec<u8>,
    ) -> R<bool> {
        let c = self.for_schemaless(py, topic)?.ok_or(Fallback)?;
        let start = out.len();
        out.extend_from_slice(&c.prefix);
        if write_anything(v, out, 0).is_err() {
            out.truncate(start);
            return Err(Fallback);
        }
        Ok(true)
    }

    /// `prefix_of(topic, None)`'s answer compiled: the prefix of the `Anything` schema on this
    /// topic; Err when the call raised (not remembered).
    fn for_schemaless(&mut self, py: Python<'_>, topic: &TopicName) -> R<Plan> {
        if let Some(c) = self.schemaless.get(&topic.name) {
            return Ok(c.clone());
        }
        let got = self
            .prefix_of
            .bind(py)
            .call1((topic.py.bind(py), py.None()))
            .map_err(|_| Fallback)?;
        let c = schemaless_of(&got);
        if self.schemaless.len() >= CACHE_LIMIT {
            self.schemaless.clear();
        }
        self.schemaless.insert(topic.name.clone(), c.clone());
        Ok(c)
    }
}

/// `(schema, plan)` (decoding: `schema` None) or `(prefix, plan)` (encoding: the schema given)
/// compiled; None for None, a None plan, or anything that does not fit.
fn compiled_of(got: &Bound<'_, PyAny>, schema: Option<&SchemaRef>) -> Option<Arc<Compiled>> {
    if got.is_none() {
        return None;
    }
    let t = got.cast::<PyTuple>().ok()?;
    if t.len() != 2 {
        return None;
    }
    let first = item(t, 0)?;
    let plan = item(t, 1)?;
    if plan.is_none() {
        return None;
    }
    let (schema, prefix): (SchemaRef, Box<[u8]>) = match schema {
        Some(s) => (s.clone(), first.extract::<Vec<u8>>().ok()?.into()),
        None => {
            if first.is_none() {
                // schemaless records: Confluent's `Anything` schema
                let root = is_anything(&plan).then_some(Root::Anything)?;
                return Some(Arc::new(Compiled { prefix: Box::new([]), root }));
            }
            (NSchema::of(&first).ok()?, Box::new([]))
        }
    };
    let root = compile(&plan, &schema, 0)?;
    Some(Arc::new(Compiled {
        prefix,
        root: Root::Typed(schema, root),
    }))
}

/// `(prefix, ("anything",))` (encoding schemaless values) compiled; None for anything else.
fn schemaless_of(got: &Bound<'_, PyAny>) -> Option<Arc<Compiled>> {
    let t = got.cast::<PyTuple>().ok()?;
    if t.len() != 2 || !is_anything(&item(t, 1)?) {
        return None;
    }
    let prefix: Vec<u8> = item(t, 0)?.extract().ok()?;
    Some(Arc::new(Compiled {
        prefix: prefix.into(),
        root: Root::Anything,
    }))
}

/// Whether a plan is `("anything",)`: Confluent's `Anything` record of schemaless values.
fn is_anything(plan: &Bound<'_, PyAny>) -> bool {
    let Ok(t) = plan.cast::<PyTuple>() else {
        return false;
    };
    let tag = item(t, 0).and_then(|x| x.extract::<String>().ok());
    t.len() == 1 && tag.as_deref() == Some("anything")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(n: i64) -> Vec<u8> {
        let mut v = Vec::new();
        push_long(&mut v, n);
        v
    }

    #[test]
    fn varints() {
        assert_eq!(enc(0), vec![0]);
        assert_eq!(enc(-1), vec![1]);
        assert_eq!(enc(1), vec![2]);
        assert_eq!(enc(-64), vec![0x7f]);
        assert_eq!(enc(64), vec![0x80, 1]);
        for n in [0, 1, -1, 63, -64, 64, 1 << 40, i64::MAX, i64::MIN, i32::MAX as i64, i32::MIN as i64] {
            let b = enc(n);
            let mut rd = Rd { b: &b, i: 0 };
            assert_eq!(rd.long().ok(), Some(n));
            assert_eq!(rd.i, b.len());
        }
        // an int beyond 32 bits, a long beyond 64 bits, an unterminated varint
        let b = enc(1 << 31);
        assert!(Rd { b: &b, i: 0 }.int().is_err());
        let b = [0xff; 10];
        assert!(Rd { b: &b, i: 0 }.long().is_err());
        let b = [0x80];
        assert!(Rd { b: &b, i: 0 }.long().is_err());
    }

    #[test]
    fn utf8_hashes() {
        assert_eq!(utf8_hash("hello"), string_hash("hello"));
        assert_ne!(utf8_hash("é"), string_hash("é"));
    }
}
