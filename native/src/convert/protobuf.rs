//! The native ProtobufConverter (Confluent's `io.confluent.connect.protobuf.ProtobufConverter`):
//! the schema-registry wire format around the Protobuf binary encoding, both ways, for the
//! messages whose plan the Python converter hands over.
//!
//! A record is `0x00`, the schema id (4 bytes, big-endian), the message indexes (`[0]`, the
//! first message of the file, as the single byte 0), then the message. As for the Avro form
//! (`avro.rs`), what the native code needs to know is asked of the Python converter once per
//! topic and remembered:
//!
//! * `resolve(topic, schema_id) -> (Schema, plan) | None` for decoding the records of `topic`
//!   written with the first message of `schema_id` (records naming another message by their
//!   indexes take the Python path);
//! * `prefix_of(topic, schema) -> (prefix, plan) | None` for encoding: the wire prefix (magic
//!   byte, id and message indexes) and the plan of the message the Connect schema is written
//!   as.
//!
//! A plan is a tree of Python tuples (documented in `kconnect.converters.protobuf.native_plan`),
//! compiled here against the Connect schema. Reading follows proto3 as the `protobuf` package
//! parses it (fields in any order, the last value of a scalar winning, packed and unpacked
//! repeated scalars, unknown fields skipped, absent fields as their defaults) and the Python
//! mapping (`protobuf_codec.py`) turns the message into Connect values; writing gives the bytes
//! the `protobuf` package's `SerializeToString` gives (fields in number order, default scalars
//! without presence left out, repeated numbers packed). Whatever the native code does not
//! reproduce exactly is `Fallback`: a truncated or malformed message, a group, a known field
//! with another wire type, a message field given twice (which Protobuf merges), invalid UTF-8,
//! a value out of its Connect type's range, a map of more than one entry to write (the
//! `protobuf` package writes map entries in its hash table's order), a value of another type
//! than its schema's.

use crate::json::read::{Fallback, R};
use crate::json::write::twos_complement;
use crate::model::pyobj::PyObj;
use crate::model::record::TopicName;
use crate::model::schema::{Logical, NSchema, SchemaRef, Ty};
use crate::model::value::{Bytes, Dec, Str, StructVal, Value};
use crate::pyconv::civil;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::collections::HashMap;
use std::sync::Arc;

/// Remembered schema ids / Connect schemas before the caches start over.
const CACHE_LIMIT: usize = 10_000;
const MS_PER_DAY: i64 = 86_400_000;

// wire types
const VARINT: u8 = 0;
const I64: u8 = 1;
const LEN: u8 = 2;
const I32: u8 = 5;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Num {
    Int32,
    Int64,
    Uint32,
    Uint64,
    Uint64Raw,
    Sint32,
    Sint64,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Float,
    Double,
    Bool,
}

enum Sc {
    Num(Num),
    Str,
    Bytes,
    Enum {
        names: HashMap<i32, Str>,
        numbers: HashMap<Str, i32>,
    },
}

enum Elem {
    Scalar(Sc),
    Message(Msg),
    Wrapper(Sc),
    Timestamp,
    Date,
    Time,
    Decimal { scale: i32 },
}

struct ElemNode {
    elem: Elem,
    /// The Connect schema of the values.
    schema: SchemaRef,
}

enum Kind {
    Single(ElemNode),
    Repeated(ElemNode),
    Map(ElemNode, ElemNode),
    Entries(Box<Field>, Box<Field>),
}

struct Field {
    number: u32,
    slot: usize,
    member: Option<usize>,
    kind: Kind,
    explicit: bool,
    null_when_absent: bool,
    /// The Connect schema of the field (the union struct's for a oneof member).
    field_schema: SchemaRef,
}

struct Msg {
    /// In field-number order.
    fields: Vec<Field>,
    /// field number -> index in `fields`, for small numbers
    by_number: Vec<Option<u16>>,
    nslots: usize,
}

impl Msg {
    /// The index of field `number` in `fields`.
    #[inline]
    fn find(&self, number: u64) -> Option<usize> {
        if let Some(i) = self.by_number.get(number as usize) {
            return i.map(|i| i as usize);
        }
        self.fields.iter().position(|f| f.number as u64 == number)
    }
}

// ---- compiling plans -------------------------------------------------------------------------

fn item<'py>(t: &Bound<'py, PyTuple>, i: usize) -> Option<Bound<'py, PyAny>> {
    t.get_item(i).ok()
}

fn num_of(tag: &str) -> Option<Num> {
    Some(match tag {
        "int32" => Num::Int32,
        "int64" => Num::Int64,
        "uint32" => Num::Uint32,
        "uint64" => Num::Uint64,
        "uint64_raw" => Num::Uint64Raw,
        "sint32" => Num::Sint32,
        "sint64" => Num::Sint64,
        "fixed32" => Num::Fixed32,
        "fixed64" => Num::Fixed64,
        "sfixed32" => Num::Sfixed32,
        "sfixed64" => Num::Sfixed64,
        "float" => Num::Float,
        "double" => Num::Double,
        "bool" => Num::Bool,
        _ => return None,
    })
}

fn is_int(s: &SchemaRef) -> bool {
    s.logical == Logical::None && matches!(s.ty, Ty::Int8 | Ty::Int16 | Ty::Int32 | Ty::Int64)
}

/// A scalar plan for values of `s`.
fn compile_scalar(t: &Bound<'_, PyTuple>, s: &SchemaRef) -> Option<Sc> {
    let tag: String = item(t, 0)?.extract().ok()?;
    let sc = match (tag.as_str(), t.len()) {
        ("string", 1) if s.ty == Ty::String && s.logical == Logical::None => Sc::Str,
        ("bytes", 1) if s.ty == Ty::Bytes && s.logical == Logical::None => Sc::Bytes,
        ("enum", 3) if (s.ty == Ty::String || s.ty == Ty::Int32) && s.logical == Logical::None => {
            let mut names = HashMap::new();
            for x in item(t, 1)?.try_iter().ok()? {
                let (n, name): (i32, String) = x.ok()?.extract().ok()?;
                names.insert(n, Str::new(name));
            }
            let mut numbers = HashMap::new();
            for x in item(t, 2)?.try_iter().ok()? {
                let (name, n): (String, i32) = x.ok()?.extract().ok()?;
                numbers.insert(Str::new(name), n);
            }
            Sc::Enum { names, numbers }
        }
        (tag, 1) => {
            let n = num_of(tag)?;
            let fits = match n {
                Num::Float => s.ty == Ty::Float32,
                Num::Double => s.ty == Ty::Float64,
                Num::Bool => s.ty == Ty::Boolean,
                _ => is_int(s),
            };
            if !fits {
                return None;
            }
            Sc::Num(n)
        }
        _ => return None,
    };
    Some(sc)
}

fn compile_elem(plan: &Bound<'_, PyAny>, s: &SchemaRef, depth: u32) -> Option<ElemNode> {
    if depth > 200 || s.misnamed {
        return None;
    }
    let t = plan.cast::<PyTuple>().ok()?;
    let tag: String = item(t, 0)?.extract().ok()?;
    let elem = match (tag.as_str(), t.len()) {
        ("message", 2) if s.ty == Ty::Struct => Elem::Message(compile_msg(&item(t, 1)?, s, depth + 1)?),
        ("wrapper", 2) => {
            let inner = item(t, 1)?;
            let inner = inner.cast::<PyTuple>().ok()?;
            match compile_scalar(inner, s)? {
                Sc::Enum { .. } => return None,
                sc => Elem::Wrapper(sc),
            }
        }
        ("timestamp", 1) if s.ty == Ty::Int64 && s.logical == Logical::Timestamp => Elem::Timestamp,
        ("date", 1) if s.ty == Ty::Int32 && s.logical == Logical::Date => Elem::Date,
        ("time", 1) if s.ty == Ty::Int32 && s.logical == Logical::Time => Elem::Time,
        ("decimal", 2) => {
            let scale: i32 = item(t, 1)?.extract().ok()?;
            if s.logical != Logical::Decimal(Some(scale)) {
                return None;
            }
            Elem::Decimal { scale }
        }
        _ => Elem::Scalar(compile_scalar(t, s)?),
    };
    Some(ElemNode { elem, schema: s.clone() })
}

/// A field plan; `owner` holds the Connect schemas of the slots (a struct's field schemas, or a
/// map's key and value schemas for an entry message).
fn compile_field(
    plan: &Bound<'_, PyAny>,
    owner: &[SchemaRef],
    depth: u32,
) -> Option<Field> {
    let t = plan.cast::<PyTuple>().ok()?;
    if t.len() != 7 {
        return None;
    }
    let number: u32 = item(t, 0)?.extract().ok()?;
    let slot: usize = item(t, 1)?.extract().ok()?;
    let member: i64 = item(t, 2)?.extract().ok()?;
    let kind: String = item(t, 3)?.extract().ok()?;
    let explicit: bool = item(t, 5)?.extract().ok()?;
    let null_when_absent: bool = item(t, 6)?.extract().ok()?;
    if number == 0 || number >= 1 << 29 {
        return None;
    }
    let field_schema = owner.get(slot)?.clone();
    let (member, s) = if member < 0 {
        (None, field_schema.clone())
    } else {
        let m = usize::try_from(member).ok()?;
        if field_schema.ty != Ty::Struct {
            return None;
        }
        (Some(m), field_schema.fields.get(m)?.schema.clone())
    };
    let elem = item(t, 4)?;
    let kind = match kind.as_str() {
        "single" => Kind::Single(compile_elem(&elem, &s, depth + 1)?),
        "repeated" if s.ty == Ty::Array => Kind::Repeated(compile_elem(&elem, s.value.as_ref()?, depth + 1)?),
        "map" if s.ty == Ty::Map => {
            let e = elem.cast::<PyTuple>().ok()?;
            let tag: String = item(e, 0)?.extract().ok()?;
            if tag != "entry" || e.len() != 3 {
                return None;
            }
            let k = compile_elem(&item(e, 1)?, s.key.as_ref()?, depth + 1)?;
            if !matches!(k.elem, Elem::Scalar(_)) {
                return None;
            }
            Kind::Map(k, compile_elem(&item(e, 2)?, s.value.as_ref()?, depth + 1)?)
        }
        "entries" if s.ty == Ty::Map => {
            let e = elem.cast::<PyTuple>().ok()?;
            let tag: String = item(e, 0)?.extract().ok()?;
            if tag != "entries" || e.len() != 3 {
                return None;
            }
            let kv = [s.key.clone()?, s.value.clone()?];
            let k = compile_field(&item(e, 1)?, &kv, depth + 1)?;
            let v = compile_field(&item(e, 2)?, &kv, depth + 1)?;
            if k.slot != 0 || v.slot != 1 || k.member.is_some() || v.member.is_some() || k.number >= v.number {
                return None;
            }
            Kind::Entries(Box::new(k), Box::new(v))
        }
        _ => return None,
    };
    Some(Field {
        number,
        slot,
        member,
        kind,
        explicit,
        null_when_absent,
        field_schema,
    })
}

fn compile_msg(fields: &Bound<'_, PyAny>, s: &SchemaRef, depth: u32) -> Option<Msg> {
    if depth > 200 {
        return None;
    }
    let fields = fields.cast::<PyTuple>().ok()?;
    let owner: Vec<SchemaRef> = s.fields.iter().map(|f| f.schema.clone()).collect();
    let mut out: Vec<Field> = Vec::with_capacity(fields.len());
    for p in fields.iter() {
        let f = compile_field(&p, &owner, depth + 1)?;
        if out.last().is_some_and(|l| l.number >= f.number) {
            return None; // not in number order, or a number twice
        }
        if f.member.is_none() && out.iter().any(|o| o.slot == f.slot && o.member.is_none()) {
            return None;
        }
        out.push(f);
    }
    let top = out.iter().map(|f| f.number).filter(|&n| n < 1024).max().unwrap_or(0) as usize;
    let mut by_number = vec![None; top + 1];
    for (i, f) in out.iter().enumerate() {
        if (f.number as usize) <= top {
            by_number[f.number as usize] = Some(i as u16);
        }
    }
    Some(Msg {
        fields: out,
        by_number,
        nslots: s.fields.len(),
    })
}

// ---- reading -------------------------------------------------------------------------------

struct Rd<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Rd<'a> {
    #[inline]
    fn done(&self) -> bool {
        self.i >= self.b.len()
    }

    #[inline]
    fn varint(&mut self) -> R<u64> {
        let mut acc: u64 = 0;
        for k in 0..10 {
            let b = *self.b.get(self.i).ok_or(Fallback)?;
            self.i += 1;
            if k == 9 && b > 1 {
                return Err(Fallback);
            }
            acc |= ((b & 0x7f) as u64) << (7 * k);
            if b & 0x80 == 0 {
                return Ok(acc);
            }
        }
        Err(Fallback)
    }

    #[inline]
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        if n > self.b.len() - self.i {
            return Err(Fallback);
        }
        let s = &self.b[self.i..self.i + n];
        self.i += n;
        Ok(s)
    }

    #[inline]
    fn sized(&mut self) -> R<&'a [u8]> {
        let n = usize::try_from(self.varint()?).map_err(|_| Fallback)?;
        self.take(n)
    }

    /// The next field's number and wire type.
    #[inline]
    fn key(&mut self) -> R<(u64, u8)> {
        let k = self.varint()?;
        let number = k >> 3;
        if number == 0 || number >= 1 << 29 {
            return Err(Fallback);
        }
        Ok((number, (k & 7) as u8))
    }

    /// Skip an unknown field's value (groups: the Python path).
    fn skip(&mut self, wt: u8) -> R<()> {
        match wt {
            VARINT => {
                self.varint()?;
            }
            I64 => {
                self.take(8)?;
            }
            LEN => {
                self.sized()?;
            }
            I32 => {
                self.take(4)?;
            }
            _ => return Err(Fallback),
        }
        Ok(())
    }
}

fn wire_type(sc: &Sc) -> u8 {
    match sc {
        Sc::Num(Num::Fixed32 | Num::Sfixed32 | Num::Float) => I32,
        Sc::Num(Num::Fixed64 | Num::Sfixed64 | Num::Double) => I64,
        Sc::Num(_) | Sc::Enum { .. } => VARINT,
        Sc::Str | Sc::Bytes => LEN,
    }
}

fn elem_wire_type(e: &Elem) -> u8 {
    match e {
        Elem::Scalar(sc) => wire_type(sc),
        _ => LEN,
    }
}

/// An integer as a value of the Connect integer schema `s`; Fallback beyond its range.
#[inline]
fn int_value(s: &NSchema, n: i64) -> R<Value> {
    Ok(match s.ty {
        Ty::Int8 => Value::I8(i8::try_from(n).map_err(|_| Fallback)?),
        Ty::Int16 => Value::I16(i16::try_from(n).map_err(|_| Fallback)?),
        Ty::Int32 => Value::I32(i32::try_from(n).map_err(|_| Fallback)?),
        _ => Value::I64(n),
    })
}

/// A scalar of wire type `wt` from `rd` as a value of `s`.
fn read_scalar(rd: &mut Rd<'_>, sc: &Sc, s: &NSchema) -> R<Value> {
    Ok(match sc {
        Sc::Str => Value::Str(Str::new(std::str::from_utf8(rd.sized()?).map_err(|_| Fallback)?)),
        Sc::Bytes => Value::Bytes(Bytes::Own(Arc::from(rd.sized()?))),
        Sc::Enum { names, .. } => {
            let n = rd.varint()? as i32;
            enum_value(names, s, n)
        }
        Sc::Num(n) => {
            let n = *n;
            match n {
                Num::Float => Value::F32(f32::from_le_bytes(rd.take(4)?.try_into().unwrap())),
                Num::Double => Value::F64(f64::from_le_bytes(rd.take(8)?.try_into().unwrap())),
                Num::Bool => Value::Bool(rd.varint()? != 0),
                Num::Fixed32 => int_value(s, u32::from_le_bytes(rd.take(4)?.try_into().unwrap()) as i64)?,
                Num::Sfixed32 => int_value(s, i32::from_le_bytes(rd.take(4)?.try_into().unwrap()) as i64)?,
                Num::Fixed64 | Num::Sfixed64 => int_value(s, i64::from_le_bytes(rd.take(8)?.try_into().unwrap()))?,
                _ => {
                    let v = rd.varint()?;
                    let n = match n {
                        Num::Int32 => v as i32 as i64,
                        Num::Uint32 => v as u32 as i64,
                        Num::Sint32 => {
                            let u = v as u32;
                            ((u >> 1) as i32 ^ -((u & 1) as i32)) as i64
                        }
                        Num::Sint64 => (v >> 1) as i64 ^ -((v & 1) as i64),
                        Num::Uint64Raw => i64::try_from(v).map_err(|_| Fallback)?,
                        _ => v as i64, // int64, uint64 (as Java's long)
                    };
                    int_value(s, n)?
                }
            }
        }
    })
}

fn enum_value(names: &HashMap<i32, Str>, s: &NSchema, n: i32) -> Value {
    if s.ty == Ty::String {
        match names.get(&n) {
            Some(name) => Value::Str(name.clone()),
            None => Value::Str(Str::new(n.to_string())),
        }
    } else {
        Value::I32(n)
    }
}

/// The value an absent scalar without presence reads as (proto3's default).
fn scalar_default(sc: &Sc, s: &NSchema) -> R<Value> {
    Ok(match sc {
        Sc::Str => Value::Str(Str::new("")),
        Sc::Bytes => Value::Bytes(Bytes::Own(Arc::from(&[][..]))),
        Sc::Enum { names, .. } => enum_value(names, s, 0),
        Sc::Num(Num::Float) => Value::F32(0.0),
        Sc::Num(Num::Double) => Value::F64(0.0),
        Sc::Num(Num::Bool) => Value::Bool(false),
        Sc::Num(_) => int_value(s, 0)?,
    })
}

/// A message-typed element from its bytes.
fn read_elem_msg(e: &ElemNode, b: &[u8]) -> R<Value> {
    match &e.elem {
        Elem::Message(m) => read_msg(m, &e.schema, b),
        Elem::Wrapper(sc) => {
            let mut rd = Rd { b, i: 0 };
            let mut v = None;
            let want = wire_type(sc);
            while !rd.done() {
                let (number, wt) = rd.key()?;
                if number == 1 {
                    if wt != want {
                        return Err(Fallback);
                    }
                    v = Some(read_scalar(&mut rd, sc, &e.schema)?);
                } else {
                    rd.skip(wt)?;
                }
            }
            match v {
                Some(v) => Ok(v),
                None => scalar_default(sc, &e.schema),
            }
        }
        Elem::Timestamp => {
            let [seconds, nanos, ..] = small_ints(b, [true, false, false, false])?;
            // Python: seconds * 1000 + nanos // 1_000_000 (floor division)
            let ms = seconds
                .checked_mul(1000)
                .and_then(|x| x.checked_add((nanos as i32 as i64).div_euclid(1_000_000)))
                .ok_or(Fallback)?;
            if !(civil::MIN_DAYS..=civil::MAX_DAYS).contains(&ms.div_euclid(MS_PER_DAY)) {
                return Err(Fallback);
            }
            Ok(Value::Timestamp(ms))
        }
        Elem::Date => {
            let [y, m, d, _] = small_ints(b, [false; 4])?;
            let (y, m, d) = (y as i32 as i64, m as i32 as i64, d as i32 as i64);
            if !(1..=9999).contains(&y) || !(1..=12).contains(&m) || d < 1 {
                return Err(Fallback);
            }
            let days = civil::to_days(y, m as u32, d as u32);
            if civil::from_days(days) != (y, m as u32, d as u32) {
                return Err(Fallback); // not a day of that month
            }
            Ok(Value::Date(days as i32))
        }
        Elem::Time => {
            let [h, m, s, n] = small_ints(b, [false; 4])?;
            let (h, m, s, n) = (h as i32 as i64, m as i32 as i64, s as i32 as i64, n as i32 as i64);
            let ms = n.div_euclid(1_000_000);
            if !(0..24).contains(&h) || !(0..60).contains(&m) || !(0..60).contains(&s) || !(0..1000).contains(&ms) {
                return Err(Fallback);
            }
            Ok(Value::Time((((h * 60 + m) * 60 + s) * 1000 + ms) as i32))
        }
        Elem::Decimal { scale, .. } => {
            let mut rd = Rd { b, i: 0 };
            let mut raw: &[u8] = &[];
            let mut m_scale: i32 = 0;
            while !rd.done() {
                let (number, wt) = rd.key()?;
                match (number, wt) {
                    (1, LEN) => raw = rd.sized()?,
                    (2, VARINT) => {
                        rd.varint()?;
                    }
                    (3, VARINT) => m_scale = rd.varint()? as i32,
                    (1..=3, _) => return Err(Fallback),
                    _ => rd.skip(wt)?,
                }
            }
            if raw.len() > 12 {
                return Err(Fallback); // beyond 28 digits: the Python path
            }
            let mut unscaled: i128 = if raw.first().is_some_and(|b| b & 0x80 != 0) { -1 } else { 0 };
            for &x in raw {
                unscaled = (unscaled << 8) | x as i128;
            }
            // Python's decimal context keeps 28 digits (scaleb and quantize beyond: the Python
            // path rounds or raises)
            const DIGITS: u128 = 10u128.pow(28);
            if unscaled.unsigned_abs() >= DIGITS {
                return Err(Fallback);
            }
            // the reader quantizes to the schema's scale, rounding half to even
            let shift = *scale as i64 - m_scale as i64;
            if shift > 0 {
                let f = 10i128.checked_pow(u32::try_from(shift).map_err(|_| Fallback)?).ok_or(Fallback)?;
                unscaled = unscaled.checked_mul(f).ok_or(Fallback)?;
            } else if shift < 0 {
                let f = if -shift > 38 { return Err(Fallback) } else { 10i128.pow((-shift) as u32) };
                let (q, r) = (unscaled / f, unscaled % f);
                let twice = r.unsigned_abs() * 2;
                let f = f as u128;
                let up = twice > f || (twice == f && q % 2 != 0);
                unscaled = if up { q + unscaled.signum() } else { q };
            }
            if unscaled.unsigned_abs() >= DIGITS {
                return Err(Fallback);
            }
            Ok(Value::Decimal(Box::new(Dec { unscaled, scale: *scale })))
        }
        Elem::Scalar(_) => Err(Fallback),
    }
}

/// Fields 1 to 4 of a small well-known message, all varints (`wide`: read as 64 bits, else
/// truncated to 32 as int32 is).
fn small_ints(b: &[u8], wide: [bool; 4]) -> R<[i64; 4]> {
    let mut rd = Rd { b, i: 0 };
    let mut out = [0i64; 4];
    while !rd.done() {
        let (number, wt) = rd.key()?;
        if (1..=4).contains(&number) {
            if wt != VARINT {
                return Err(Fallback);
            }
            let v = rd.varint()?;
            let k = number as usize - 1;
            out[k] = if wide[k] { v as i64 } else { v as i32 as i64 };
        } else {
            rd.skip(wt)?;
        }
    }
    Ok(out)
}

/// One element of a field of wire type `wt`.
#[inline]
fn read_elem(rd: &mut Rd<'_>, e: &ElemNode) -> R<Value> {
    match &e.elem {
        Elem::Scalar(sc) => read_scalar(rd, sc, &e.schema),
        _ => {
            let b = rd.sized()?;
            read_elem_msg(e, b)
        }
    }
}

fn packable(e: &ElemNode) -> bool {
    matches!(&e.elem, Elem::Scalar(Sc::Num(_) | Sc::Enum { .. }))
}

/// The value of a field absent from the message.
fn absent(f: &Field) -> R<Value> {
    Ok(match &f.kind {
        Kind::Single(e) => {
            if f.null_when_absent {
                Value::Null
            } else {
                match &e.elem {
                    Elem::Scalar(sc) => scalar_default(sc, &e.schema)?,
                    _ => Value::Null,
                }
            }
        }
        Kind::Repeated(_) => Value::Array(Vec::new()),
        Kind::Map(..) | Kind::Entries(..) => Value::Map(Vec::new()),
    })
}

/// Put a map entry, the last of equal keys winning as in a Python dict.
fn put(entries: &mut Vec<(Value, Value)>, k: Value, v: Value) {
    if let Some(slot) = entries.iter_mut().find(|(x, _)| same_key(x, &k)) {
        slot.1 = v;
    } else {
        entries.push((k, v));
    }
}

fn same_key(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => match (a.as_integer(), b.as_integer()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// One field occurrence of field `f` (wire type `wt`) into `slots`.
fn read_field(rd: &mut Rd<'_>, f: &Field, wt: u8, slots: &mut [Value], seen: &mut [bool], fi: usize) -> R<()> {
    match &f.kind {
        Kind::Single(e) => {
            if wt != elem_wire_type(&e.elem) {
                return Err(Fallback);
            }
            let is_msg = !matches!(e.elem, Elem::Scalar(_));
            if let Some(mi) = f.member {
                // a oneof: the member set last is the one; the same message again is merged
                let Value::Struct(u) = &mut slots[f.slot] else {
                    let v = read_elem(rd, e)?;
                    let mut values: Vec<Value> = (0..f.field_schema.fields.len()).map(|_| Value::Null).collect();
                    values[mi] = v;
                    slots[f.slot] = Value::Struct(Box::new(StructVal {
                        schema: f.field_schema.clone(),
                        values,
                    }));
                    return Ok(());
                };
                if is_msg && !u.values[mi].is_null() {
                    return Err(Fallback);
                }
                let v = read_elem(rd, e)?;
                for x in u.values.iter_mut() {
                    *x = Value::Null;
                }
                u.values[mi] = v;
                return Ok(());
            }
            if is_msg && seen[fi] {
                return Err(Fallback); // Protobuf merges the two: the Python path
            }
            seen[fi] = true;
            slots[f.slot] = read_elem(rd, e)?;
        }
        Kind::Repeated(e) => {
            if !seen[fi] {
                seen[fi] = true;
                slots[f.slot] = Value::Array(Vec::new());
            }
            let Value::Array(items) = &mut slots[f.slot] else {
                return Err(Fallback);
            };
            let ewt = elem_wire_type(&e.elem);
            if wt == ewt {
                items.push(read_elem(rd, e)?);
            } else if wt == LEN && packable(e) {
                let b = rd.sized()?;
                let mut inner = Rd { b, i: 0 };
                while !inner.done() {
                    items.push(read_elem(&mut inner, e)?);
                }
            } else {
                return Err(Fallback);
            }
        }
        Kind::Map(ke, ve) => {
            if wt != LEN {
                return Err(Fallback);
            }
            let b = rd.sized()?;
            let mut inner = Rd { b, i: 0 };
            let (mut k, mut v) = (None, None);
            while !inner.done() {
                let (number, wt) = inner.key()?;
                match number {
                    1 => {
                        if wt != elem_wire_type(&ke.elem) {
                            return Err(Fallback);
                        }
                        k = Some(read_elem(&mut inner, ke)?);
                    }
                    2 => {
                        if wt != elem_wire_type(&ve.elem) || (v.is_some() && !matches!(ve.elem, Elem::Scalar(_))) {
                            return Err(Fallback);
                        }
                        v = Some(read_elem(&mut inner, ve)?);
                    }
                    _ => inner.skip(wt)?,
                }
            }
            let k = match k {
                Some(k) => k,
                None => match &ke.elem {
                    Elem::Scalar(sc) => scalar_default(sc, &ke.schema)?,
                    _ => return Err(Fallback),
                },
            };
            let v = match v {
                Some(v) => v,
                None => match &ve.elem {
                    Elem::Scalar(sc) => scalar_default(sc, &ve.schema)?,
                    _ => read_elem_msg(ve, &[])?, // an absent message value: its default instance
                },
            };
            if !seen[fi] {
                seen[fi] = true;
                slots[f.slot] = Value::Map(Vec::new());
            }
            let Value::Map(entries) = &mut slots[f.slot] else {
                return Err(Fallback);
            };
            put(entries, k, v);
        }
        Kind::Entries(kf, vf) => {
            if wt != LEN {
                return Err(Fallback);
            }
            let b = rd.sized()?;
            let [k, v] = read_fields(&[&**kf, &**vf], b)?;
            if !seen[fi] {
                seen[fi] = true;
                slots[f.slot] = Value::Map(Vec::new());
            }
            let Value::Map(entries) = &mut slots[f.slot] else {
                return Err(Fallback);
            };
            put(entries, k, v);
        }
    }
    Ok(())
}

/// The slots of a message of the fields `fields` (in number order).
fn read_fields<const N: usize>(fields: &[&Field; N], b: &[u8]) -> R<[Value; N]> {
    let mut slots: [Value; N] = std::array::from_fn(|_| Value::Null);
    let mut seen = [false; N];
    let mut rd = Rd { b, i: 0 };
    while !rd.done() {
        let (number, wt) = rd.key()?;
        match fields.iter().position(|f| f.number as u64 == number) {
            Some(fi) => read_field(&mut rd, fields[fi], wt, &mut slots, &mut seen, fi)?,
            None => rd.skip(wt)?,
        }
    }
    for (fi, f) in fields.iter().enumerate() {
        if !seen[fi] {
            slots[f.slot] = absent(f)?;
        }
    }
    Ok(slots)
}

fn read_msg(m: &Msg, s: &SchemaRef, b: &[u8]) -> R<Value> {
    let mut slots: Vec<Value> = (0..m.nslots).map(|_| Value::Null).collect();
    let mut seen = vec![false; m.fields.len()];
    let mut rd = Rd { b, i: 0 };
    while !rd.done() {
        let (number, wt) = rd.key()?;
        match m.find(number) {
            Some(fi) => read_field(&mut rd, &m.fields[fi], wt, &mut slots, &mut seen, fi)?,
            None => rd.skip(wt)?,
        }
    }
    for (fi, f) in m.fields.iter().enumerate() {
        if !seen[fi] && f.member.is_none() {
            slots[f.slot] = absent(f)?;
        }
    }
    Ok(Value::Struct(Box::new(StructVal {
        schema: s.clone(),
        values: slots,
    })))
}

// ---- writing -------------------------------------------------------------------------------

#[inline]
fn push_varint(out: &mut Vec<u8>, mut z: u64) {
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

#[inline]
fn push_key(out: &mut Vec<u8>, number: u32, wt: u8) {
    push_varint(out, ((number as u64) << 3) | wt as u64);
}

/// Prefix the bytes written since `start` with their length.
fn close_len(out: &mut Vec<u8>, start: usize) {
    let n = out.len() - start;
    if n < 0x80 {
        out.insert(start, n as u8);
        return;
    }
    let mut head = Vec::with_capacity(5);
    push_varint(&mut head, n as u64);
    out.splice(start..start, head);
}

/// A Python float value (a float that is not a float32, for a FLOAT32 schema).
fn py_float(v: &Value) -> Option<f64> {
    if let Value::Py(o) = v {
        let p = o.as_ptr();
        if unsafe { pyo3::ffi::PyFloat_CheckExact(p) } != 0 {
            return Some(unsafe { pyo3::ffi::PyFloat_AS_DOUBLE(p) });
        }
    }
    None
}

/// A scalar's bytes (no key); whether it is the proto3 default (written only with presence).
fn write_scalar(sc: &Sc, v: &Value, out: &mut Vec<u8>) -> R<bool> {
    Ok(match (sc, v) {
        (Sc::Str, Value::Str(s)) => {
            push_varint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
            s.is_empty()
        }
        (Sc::Bytes, Value::Bytes(b)) => {
            push_varint(out, b.len() as u64);
            out.extend_from_slice(b);
            b.is_empty()
        }
        (Sc::Enum { numbers, .. }, _) => {
            let n = match v {
                Value::Str(s) => *numbers.get(s).ok_or(Fallback)?,
                _ => i32::try_from(v.as_integer().ok_or(Fallback)?).map_err(|_| Fallback)?,
            };
            push_varint(out, n as i64 as u64);
            n == 0
        }
        (Sc::Num(Num::Float), _) => {
            let f = match v {
                Value::F32(f) => *f,
                Value::F64(f) => float32(*f)?,
                _ => float32(py_float(v).ok_or(Fallback)?)?,
            };
            out.extend_from_slice(&f.to_le_bytes());
            f.to_bits() == 0
        }
        (Sc::Num(Num::Double), Value::F64(f)) => {
            out.extend_from_slice(&f.to_le_bytes());
            f.to_bits() == 0
        }
        (Sc::Num(Num::Bool), Value::Bool(b)) => {
            out.push(*b as u8);
            !*b
        }
        (Sc::Num(n), _) => {
            let x = v.as_integer().ok_or(Fallback)?;
            let in32 = |x: i64| i32::try_from(x).map_err(|_| Fallback);
            let u32_ = |x: i64| u32::try_from(x).map_err(|_| Fallback);
            match n {
                Num::Int32 => push_varint(out, in32(x)? as i64 as u64),
                Num::Uint32 => push_varint(out, u32_(x)? as u64),
                Num::Sint32 => {
                    let y = in32(x)?;
                    push_varint(out, ((y << 1) ^ (y >> 31)) as u32 as u64)
                }
                Num::Int64 | Num::Uint64 => push_varint(out, x as u64),
                Num::Uint64Raw => push_varint(out, u64::try_from(x).map_err(|_| Fallback)?),
                Num::Sint64 => push_varint(out, ((x << 1) ^ (x >> 63)) as u64),
                Num::Fixed32 => out.extend_from_slice(&u32_(x)?.to_le_bytes()),
                Num::Sfixed32 => out.extend_from_slice(&in32(x)?.to_le_bytes()),
                Num::Fixed64 | Num::Sfixed64 => out.extend_from_slice(&x.to_le_bytes()),
                Num::Float | Num::Double | Num::Bool => return Err(Fallback),
            }
            x == 0
        }
        _ => return Err(Fallback),
    })
}

/// A double as a float32; a finite value beyond float32's range is refused.
#[inline]
fn float32(f: f64) -> R<f32> {
    let g = f as f32;
    if f.is_finite() && !g.is_finite() {
        return Err(Fallback);
    }
    Ok(g)
}

/// A scalar field (key and value) unless it is a default without presence.
fn write_scalar_field(number: u32, sc: &Sc, v: &Value, explicit: bool, out: &mut Vec<u8>) -> R<()> {
    let start = out.len();
    push_key(out, number, wire_type(sc));
    let default = write_scalar(sc, v, out)?;
    if default && !explicit {
        out.truncate(start);
    }
    Ok(())
}

/// Fields 1.. of a small message of varints, the zeros left out.
fn write_ints(ints: &[i64], out: &mut Vec<u8>) {
    for (i, &x) in ints.iter().enumerate() {
        if x != 0 {
            push_key(out, i as u32 + 1, VARINT);
            push_varint(out, x as u64);
        }
    }
}

/// The body of a message-typed element (no key, no length).
fn write_elem_body(e: &ElemNode, v: &Value, out: &mut Vec<u8>) -> R<()> {
    match (&e.elem, v) {
        (Elem::Message(m), Value::Struct(sv)) => write_msg(m, &e.schema, sv, out),
        (Elem::Wrapper(sc), _) => write_scalar_field(1, sc, v, false, out),
        (Elem::Timestamp, Value::Timestamp(ms)) => {
            write_ints(&[ms.div_euclid(1000), ms.rem_euclid(1000) * 1_000_000], out);
            Ok(())
        }
        (Elem::Date, Value::Date(days)) => {
            let (y, m, d) = civil::from_days(*days as i64);
            write_ints(&[y, m as i64, d as i64], out);
            Ok(())
        }
        (Elem::Time, Value::Time(ms)) => {
            if !(0..MS_PER_DAY as i32).contains(ms) {
                return Err(Fallback);
            }
            let ms = *ms as i64;
            write_ints(&[ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000 * 1_000_000], out);
            Ok(())
        }
        (Elem::Decimal { scale }, Value::Decimal(d)) => {
            if d.scale != *scale {
                return Err(Fallback); // Decimal.from_logical rescales (or refuses)
            }
            let raw = twos_complement(d.unscaled);
            push_key(out, 1, LEN);
            push_varint(out, raw.len() as u64);
            out.extend_from_slice(&raw);
            // Confluent's DecimalUtils.fromBigDecimal: the value's own precision (the digits
            // of its unscaled value, 1 for zero), not the schema's parameter
            push_key(out, 2, VARINT);
            push_varint(out, decimal_digits(d.unscaled));
            if *scale != 0 {
                push_key(out, 3, VARINT);
                push_varint(out, *scale as i64 as u64);
            }
            Ok(())
        }
        _ => Err(Fallback),
    }
}

/// One element of a field (key included): a scalar, or a message with its length.
fn write_elem_field(number: u32, e: &ElemNode, v: &Value, explicit: bool, out: &mut Vec<u8>) -> R<()> {
    match &e.elem {
        Elem::Scalar(sc) => write_scalar_field(number, sc, v, explicit, out),
        _ => {
            push_key(out, number, LEN);
            let start = out.len();
            write_elem_body(e, v, out)?;
            close_len(out, start);
            Ok(())
        }
    }
}

/// A field's non-null value (the Python mapping's conversions, then proto3's encoding).
fn write_field(f: &Field, v: &Value, explicit: bool, out: &mut Vec<u8>) -> R<()> {
    match &f.kind {
        Kind::Single(e) => write_elem_field(f.number, e, v, explicit, out),
        Kind::Repeated(e) => {
            let Value::Array(items) = v else {
                return Err(Fallback);
            };
            if packable(e) {
                if items.iter().all(Value::is_null) {
                    return Ok(());
                }
                let Elem::Scalar(sc) = &e.elem else {
                    return Err(Fallback);
                };
                push_key(out, f.number, LEN);
                let start = out.len();
                for x in items.iter().filter(|x| !x.is_null()) {
                    write_scalar(sc, x, out)?;
                }
                close_len(out, start);
            } else {
                for x in items.iter().filter(|x| !x.is_null()) {
                    write_elem_field(f.number, e, x, true, out)?;
                }
            }
            Ok(())
        }
        Kind::Map(ke, ve) => {
            let Value::Map(entries) = v else {
                return Err(Fallback);
            };
            let mut set = entries.iter().filter(|(_, x)| !x.is_null());
            let Some((k, x)) = set.next() else {
                return Ok(());
            };
            if set.next().is_some() {
                return Err(Fallback); // the protobuf package's map order: the Python path
            }
            if k.is_null() {
                return Err(Fallback);
            }
            push_key(out, f.number, LEN);
            let start = out.len();
            write_elem_field(1, ke, k, true, out)?;
            write_elem_field(2, ve, x, true, out)?;
            close_len(out, start);
            Ok(())
        }
        Kind::Entries(kf, vf) => {
            let Value::Map(entries) = v else {
                return Err(Fallback);
            };
            for (k, x) in entries {
                if k.is_null() {
                    return Err(Fallback);
                }
                push_key(out, f.number, LEN);
                let start = out.len();
                write_field(kf, k, kf.explicit, out)?;
                if !x.is_null() {
                    write_field(vf, x, vf.explicit, out)?;
                }
                close_len(out, start);
            }
            Ok(())
        }
    }
}

fn write_msg(m: &Msg, s: &SchemaRef, sv: &StructVal, out: &mut Vec<u8>) -> R<()> {
    if !Arc::ptr_eq(&sv.schema, s) && sv.schema.py.as_ptr() != s.py.as_ptr() {
        return Err(Fallback); // the Python mapping compares the schemas
    }
    let values = &sv.values;
    if values.len() != m.nslots {
        return Err(Fallback);
    }
    for f in &m.fields {
        let v = &values[f.slot];
        if let Some(mi) = f.member {
            // a union struct: its first non-null member is the oneof's value
            if v.is_null() {
                continue;
            }
            let Value::Struct(u) = v else {
                return Err(Fallback);
            };
            if u.values.iter().position(|x| !x.is_null()) != Some(mi) {
                continue;
            }
            write_field(f, &u.values[mi], true, out)?;
            continue;
        }
        if v.is_null() {
            if f.field_schema.default_value().is_some() {
                return Err(Fallback); // the Python mapping writes the default
            }
            continue;
        }
        write_field(f, v, f.explicit, out)?;
    }
    Ok(())
}

// ---- the converter ---------------------------------------------------------------------------

struct Compiled {
    schema: SchemaRef,
    prefix: Box<[u8]>,
    root: ElemNode,
}

type Plan = Option<Arc<Compiled>>;

pub struct ProtobufState {
    resolve: PyObj,
    prefix_of: PyObj,
    by_id: HashMap<(Str, i32), Plan>,
    last_id: Option<(Str, i32, Plan)>,
    by_schema: HashMap<(Str, usize), (SchemaRef, Plan)>,
    last_schema: Option<(Str, SchemaRef, Plan)>,
}

impl ProtobufState {
    pub fn new(resolve: PyObj, prefix_of: PyObj) -> ProtobufState {
        ProtobufState {
            resolve,
            prefix_of,
            by_id: HashMap::new(),
            last_id: None,
            by_schema: HashMap::new(),
            last_schema: None,
        }
    }

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
        let topic = topic.ok_or(Fallback)?;
        let Some(data) = data else {
            return Ok((None, Value::Null));
        };
        if data.len() < 6 || data[0] != 0 {
            return Err(Fallback);
        }
        let id = i32::from_be_bytes([data[1], data[2], data[3], data[4]]);
        // the message indexes [0]: 0 (Confluent's short form) or 2 0 (a count of one, then 0)
        let start = match &data[5..] {
            [0, ..] => 6,
            [2, 0, ..] => 7,
            _ => return Err(Fallback),
        };
        let c = self.for_id(py, topic, id)?.ok_or(Fallback)?;
        let body = &data[start..];
        let v = match &c.root.elem {
            Elem::Scalar(_) => return Err(Fallback),
            _ => read_elem_msg(&c.root, body)?,
        };
        Ok((Some(c.schema.clone()), v))
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
        if v.is_null() {
            return Ok(false); // the Python converter writes null for any null value
        }
        let s = schema.ok_or(Fallback)?;
        let c = self.for_schema(py, topic, s)?.ok_or(Fallback)?;
        let start = out.len();
        out.extend_from_slice(&c.prefix);
        if write_elem_body(&c.root, v, out).is_err() {
            out.truncate(start);
            return Err(Fallback);
        }
        Ok(true)
    }
}

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
                return None;
            }
            (NSchema::of(&first).ok()?, Box::new([]))
        }
    };
    let root = compile_elem(&plan, &schema, 0)?;
    if matches!(root.elem, Elem::Scalar(_)) {
        return None;
    }
    Some(Arc::new(Compiled { schema, prefix, root }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        for n in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            push_varint(&mut b, n);
            let mut rd = Rd { b: &b, i: 0 };
            assert_eq!(rd.varint().ok(), Some(n));
            assert!(rd.done());
        }
        assert!(Rd { b: &[0x80], i: 0 }.varint().is_err());
        assert!(Rd { b: &[0xff; 11], i: 0 }.varint().is_err());
    }

    #[test]
    fn lengths() {
        let mut out = vec![9u8];
        out.extend(std::iter::repeat_n(1u8, 200));
        close_len(&mut out, 1);
        assert_eq!(&out[..3], &[9, 0xc8, 0x01]);
        assert_eq!(out.len(), 203);
    }
}

/// `BigDecimal.precision()` of an unscaled value: its decimal digits (1 for zero).
fn decimal_digits(unscaled: i128) -> u64 {
    let mut n = unscaled.unsigned_abs();
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}
