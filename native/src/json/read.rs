//! JSON text to native values: JsonConverter payloads, directed by a schema or schemaless.
//!
//! A strict RFC 8259 reader that builds values straight from the bytes, with the Python
//! reference decoder's rules (`kconnect.converters.json_values.compile_decoder` and
//! `decode_schemaless`). It takes only what it is sure of; anything else -- a number beyond 64
//! bits or 17 digits, a float where an int is expected, a duplicate key, a lone surrogate, a
//! type the schema does not allow, a date outside Python's range -- is `Fallback`, and the
//! record goes to the Python path, which decodes it or raises its own error.
//!
//! Objects decoded into maps (schemaless objects, MAP values) are `java.util.HashMap`s in
//! Java's JsonConverter: their entries are put in that map's iteration order.

use crate::java;
use crate::java::hash::{order_entries, MapKind};
use crate::model::schema::{Logical, SchemaRef, Ty};
use crate::model::value::{Bytes, Dec, Str, StructVal, Value};
use crate::pyconv::civil;
use std::sync::Arc;

pub struct Fallback;
pub type R<T> = Result<T, Fallback>;

const MAX_DEPTH: u32 = 200;
const MS_PER_DAY: i64 = 86_400_000;

pub enum Num<'a> {
    Int(i64),
    /// A number token that is not an i64: its float value and its text.
    Float(f64, &'a [u8]),
}

pub struct Reader<'a> {
    pub b: &'a [u8],
    pub i: usize,
    /// scratch for strings with escapes
    tmp: Vec<u8>,
    /// replace.null.with.default
    pub rnwd: bool,
}

impl<'a> Reader<'a> {
    pub fn new(b: &'a [u8], rnwd: bool) -> Self {
        Reader {
            b,
            i: 0,
            tmp: Vec::new(),
            rnwd,
        }
    }

    #[inline]
    pub fn ws(&mut self) {
        while self.i < self.b.len() {
            match self.b[self.i] {
                b' ' | b'\t' | b'\n' | b'\r' => self.i += 1,
                _ => break,
            }
        }
    }

    #[inline]
    pub fn at_end(&mut self) -> bool {
        self.ws();
        self.i == self.b.len()
    }

    #[inline]
    fn peek(&self) -> R<u8> {
        self.b.get(self.i).copied().ok_or(Fallback)
    }

    #[inline]
    fn lit(&mut self, word: &[u8]) -> R<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(Fallback)
        }
    }

    #[inline]
    fn expect(&mut self, c: u8) -> R<()> {
        self.ws();
        if self.peek()? == c {
            self.i += 1;
            Ok(())
        } else {
            Err(Fallback)
        }
    }

    /// A JSON number token.
    pub fn number(&mut self) -> R<Num<'a>> {
        let start = self.i;
        let b = self.b;
        let mut i = self.i;
        if i < b.len() && b[i] == b'-' {
            i += 1;
        }
        if i >= b.len() {
            return Err(Fallback);
        }
        if b[i] == b'0' {
            i += 1;
        } else if b[i].is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        } else {
            return Err(Fallback);
        }
        let mut is_float = false;
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let d = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == d {
                return Err(Fallback);
            }
            is_float = true;
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                i += 1;
            }
            let d = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == d {
                return Err(Fallback);
            }
            is_float = true;
        }
        self.i = i;
        let raw = &b[start..i];
        // the token is ASCII digits and signs only
        let text = unsafe { std::str::from_utf8_unchecked(raw) };
        if !is_float {
            return text.parse::<i64>().map(Num::Int).map_err(|_| Fallback);
        }
        // At most 17 significant digits (what Jackson, Python and orjson write): a correctly
        // rounded parse is then unambiguous; longer spellings are left to the Python path.
        let digits = raw
            .iter()
            .take_while(|c| **c != b'e' && **c != b'E')
            .filter(|c| c.is_ascii_digit())
            .skip_while(|c| **c == b'0')
            .count();
        if digits > 17 {
            return Err(Fallback);
        }
        let f: f64 = text.parse().map_err(|_| Fallback)?;
        if !f.is_finite() {
            return Err(Fallback);
        }
        Ok(Num::Float(f, raw))
    }

    /// A string token's UTF-8 (the reader is at its opening quote).
    pub fn string(&mut self) -> R<&[u8]> {
        self.i += 1;
        let b = self.b;
        let start = self.i;
        let mut i = start;
        let mut ascii = true;
        while i < b.len() {
            let c = b[i];
            if c == b'"' {
                let s = &b[start..i];
                self.i = i + 1;
                if !ascii && std::str::from_utf8(s).is_err() {
                    return Err(Fallback);
                }
                return Ok(s);
            }
            if c == b'\\' {
                return self.escaped_string(start, i);
            }
            if c < 0x20 {
                return Err(Fallback);
            }
            if c >= 0x80 {
                ascii = false;
            }
            i += 1;
        }
        Err(Fallback)
    }

    fn hex4(&self, i: usize) -> R<u32> {
        let h = self.b.get(i..i + 4).ok_or(Fallback)?;
        let mut v = 0u32;
        for &c in h {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => return Err(Fallback),
            } as u32;
            v = v * 16 + d;
        }
        Ok(v)
    }

    fn escaped_string(&mut self, start: usize, first_escape: usize) -> R<&[u8]> {
        let b = self.b;
        let mut out = std::mem::take(&mut self.tmp);
        out.clear();
        let mut raw_from = start;
        let mut i = first_escape;
        let done = loop {
            if i >= b.len() {
                break Err(Fallback);
            }
            let c = b[i];
            if c == b'"' {
                out.extend_from_slice(&b[raw_from..i]);
                self.i = i + 1;
                break Ok(());
            }
            if c < 0x20 {
                break Err(Fallback);
            }
            if c != b'\\' {
                i += 1;
                continue;
            }
            out.extend_from_slice(&b[raw_from..i]);
            let Some(&e) = b.get(i + 1) else {
                break Err(Fallback);
            };
            i += 2;
            match e {
                b'"' => out.push(b'"'),
                b'\\' => out.push(b'\\'),
                b'/' => out.push(b'/'),
                b'b' => out.push(0x08),
                b'f' => out.push(0x0c),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'u' => {
                    let Ok(mut cp) = self.hex4(i) else {
                        break Err(Fallback);
                    };
                    i += 4;
                    if (0xDC00..0xE000).contains(&cp) {
                        break Err(Fallback);
                    }
                    if (0xD800..0xDC00).contains(&cp) {
                        // a high surrogate must be followed by an escaped low one
                        if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
                            break Err(Fallback);
                        }
                        let Ok(lo) = self.hex4(i + 2) else {
                            break Err(Fallback);
                        };
                        if !(0xDC00..0xE000).contains(&lo) {
                            break Err(Fallback);
                        }
                        i += 6;
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    }
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(char::from_u32(cp).unwrap().encode_utf8(&mut tmp).as_bytes());
                }
                _ => break Err(Fallback),
            }
            raw_from = i;
        };
        self.tmp = out;
        done?;
        if std::str::from_utf8(&self.tmp).is_err() {
            return Err(Fallback);
        }
        Ok(&self.tmp)
    }

    #[inline]
    fn str_value(&mut self) -> R<Str> {
        let s = self.string()?;
        // string() checked the bytes are UTF-8
        Ok(Str::new(unsafe { std::str::from_utf8_unchecked(s) }))
    }

    /// Skip one JSON value, checking it is well formed; returns where it started.
    pub fn skip_value(&mut self, depth: u32) -> R<usize> {
        if depth > MAX_DEPTH {
            return Err(Fallback);
        }
        self.ws();
        let start = self.i;
        match self.peek()? {
            b'n' => self.lit(b"null")?,
            b't' => self.lit(b"true")?,
            b'f' => self.lit(b"false")?,
            b'"' => {
                self.string()?;
            }
            b'[' => {
                self.i += 1;
                self.ws();
                if self.peek()? == b']' {
                    self.i += 1;
                } else {
                    loop {
                        self.skip_value(depth + 1)?;
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b']' => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(Fallback),
                        }
                    }
                }
            }
            b'{' => {
                self.i += 1;
                self.ws();
                if self.peek()? == b'}' {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        if self.peek()? != b'"' {
                            return Err(Fallback);
                        }
                        self.string()?;
                        self.expect(b':')?;
                        self.skip_value(depth + 1)?;
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b'}' => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(Fallback),
                        }
                    }
                }
            }
            _ => {
                self.number()?;
            }
        }
        Ok(start)
    }

    // ---------------------------------------------------------------------- schemaless

    /// Any JSON value as a schemaless Connect value (`decode_schemaless`): integers are
    /// `Long`s, other numbers `Double`s, objects `HashMap`s, arrays lists.
    pub fn any(&mut self, depth: u32) -> R<Value> {
        if depth > MAX_DEPTH {
            return Err(Fallback);
        }
        self.ws();
        match self.peek()? {
            b'n' => {
                self.lit(b"null")?;
                Ok(Value::Null)
            }
            b't' => {
                self.lit(b"true")?;
                Ok(Value::Bool(true))
            }
            b'f' => {
                self.lit(b"false")?;
                Ok(Value::Bool(false))
            }
            b'"' => Ok(Value::Str(self.str_value()?)),
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek()? == b']' {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(self.any(depth + 1)?);
                    self.ws();
                    match self.peek()? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Ok(Value::Array(items));
                        }
                        _ => return Err(Fallback),
                    }
                }
            }
            b'{' => {
                self.i += 1;
                let mut entries: Vec<(Value, Value)> = Vec::new();
                self.ws();
                if self.peek()? == b'}' {
                    self.i += 1;
                    return Ok(Value::Map(entries));
                }
                loop {
                    self.ws();
                    if self.peek()? != b'"' {
                        return Err(Fallback);
                    }
                    let k = self.str_value()?;
                    self.expect(b':')?;
                    let x = self.any(depth + 1)?;
                    if entries.iter().any(|(e, _)| matches!(e, Value::Str(s) if *s == k)) {
                        return Err(Fallback); // a duplicate key
                    }
                    entries.push((Value::Str(k), x));
                    self.ws();
                    match self.peek()? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            order_entries(&mut entries, MapKind::Hash);
                            return Ok(Value::Map(entries));
                        }
                        _ => return Err(Fallback),
                    }
                }
            }
            _ => Ok(match self.number()? {
                Num::Int(n) => Value::I64(n),
                Num::Float(f, _) => Value::F64(f),
            }),
        }
    }

    // ---------------------------------------------------------------------- with a schema

    /// What a JSON null (or a missing field) of `s` decodes to.
    #[inline]
    pub fn null_of(&self, s: &SchemaRef) -> R<Value> {
        if self.rnwd {
            if let Some(d) = s.default_value() {
                return Ok(d.clone());
            }
        }
        if s.optional {
            Ok(Value::Null)
        } else {
            Err(Fallback)
        }
    }

    /// A value of schema `s`.
    pub fn typed(&mut self, s: &SchemaRef, depth: u32) -> R<Value> {
        if depth > MAX_DEPTH {
            return Err(Fallback);
        }
        self.ws();
        let c = self.peek()?;
        if c == b'n' {
            self.lit(b"null")?;
            return self.null_of(s);
        }
        if s.misnamed {
            return Err(Fallback);
        }
        match s.logical {
            Logical::None => {}
            Logical::Decimal(scale) => return self.decimal(c, scale),
            Logical::Date => {
                let Num::Int(n) = self.number()? else {
                    return Err(Fallback);
                };
                let days = i32::try_from(n).map_err(|_| Fallback)?;
                if !(civil::MIN_DAYS..=civil::MAX_DAYS).contains(&(days as i64)) {
                    return Err(Fallback);
                }
                return Ok(Value::Date(days));
            }
            Logical::Time => {
                let Num::Int(n) = self.number()? else {
                    return Err(Fallback);
                };
                if !(0..=MS_PER_DAY).contains(&n) {
                    return Err(Fallback);
                }
                return Ok(Value::Time((n % MS_PER_DAY) as i32));
            }
            Logical::Timestamp => {
                let Num::Int(n) = self.number()? else {
                    return Err(Fallback);
                };
                let days = n.div_euclid(MS_PER_DAY);
                if !(civil::MIN_DAYS..=civil::MAX_DAYS).contains(&days) {
                    return Err(Fallback);
                }
                return Ok(Value::Timestamp(n));
            }
        }
        match s.ty {
            Ty::Int8 | Ty::Int16 | Ty::Int32 | Ty::Int64 => {
                let Num::Int(n) = self.number()? else {
                    return Err(Fallback);
                };
                Ok(match s.ty {
                    Ty::Int8 => Value::I8(i8::try_from(n).map_err(|_| Fallback)?),
                    Ty::Int16 => Value::I16(i16::try_from(n).map_err(|_| Fallback)?),
                    Ty::Int32 => Value::I32(i32::try_from(n).map_err(|_| Fallback)?),
                    _ => Value::I64(n),
                })
            }
            Ty::Float64 | Ty::Float32 => {
                let f = if c == b'"' {
                    match self.string()? {
                        b"NaN" => f64::NAN,
                        b"Infinity" => f64::INFINITY,
                        b"-Infinity" => f64::NEG_INFINITY,
                        _ => return Err(Fallback),
                    }
                } else {
                    match self.number()? {
                        Num::Int(n) => n as f64,
                        Num::Float(f, _) => f,
                    }
                };
                Ok(if s.ty == Ty::Float32 {
                    Value::F32(f as f32)
                } else {
                    Value::F64(f)
                })
            }
            Ty::Boolean => match c {
                b't' => {
                    self.lit(b"true")?;
                    Ok(Value::Bool(true))
                }
                b'f' => {
                    self.lit(b"false")?;
                    Ok(Value::Bool(false))
                }
                _ => Err(Fallback),
            },
            Ty::String => {
                if c != b'"' {
                    return Err(Fallback);
                }
                Ok(Value::Str(self.str_value()?))
            }
            Ty::Bytes => {
                if c != b'"' {
                    return Err(Fallback);
                }
                let raw = java::base64::decode(self.string()?).ok_or(Fallback)?;
                Ok(Value::Bytes(Bytes::Own(Arc::from(raw))))
            }
            Ty::Array => {
                if c != b'[' {
                    return Err(Fallback);
                }
                let item = s.value.as_ref().ok_or(Fallback)?;
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek()? == b']' {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(self.typed(item, depth + 1)?);
                    self.ws();
                    match self.peek()? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Ok(Value::Array(items));
                        }
                        _ => return Err(Fallback),
                    }
                }
            }
            Ty::Map => self.map(s, c, depth),
            Ty::Struct => {
                if c != b'{' {
                    return Err(Fallback);
                }
                self.i += 1;
                self.struct_body(s, depth)
            }
        }
    }

    fn decimal(&mut self, c: u8, scale: Option<i32>) -> R<Value> {
        if c == b'"' {
            let scale = scale.ok_or(Fallback)?;
            let raw = java::base64::decode(self.string()?).ok_or(Fallback)?;
            if raw.is_empty() || raw.len() > 16 {
                return Err(Fallback);
            }
            // big-endian two's complement
            let mut v: i128 = if raw[0] & 0x80 != 0 { -1 } else { 0 };
            for b in raw {
                v = (v << 8) | b as i128;
            }
            return Ok(Value::Decimal(Box::new(Dec { unscaled: v, scale })));
        }
        let d = match self.number()? {
            Num::Int(n) => Dec {
                unscaled: n as i128,
                scale: 0,
            },
            Num::Float(_, text) => java::parse_big_decimal(text).ok_or(Fallback)?,
        };
        Ok(Value::Decimal(Box::new(d)))
    }

    fn map(&mut self, s: &SchemaRef, c: u8, depth: u32) -> R<Value> {
        let ks = s.key.as_ref().ok_or(Fallback)?;
        let vs = s.value.as_ref().ok_or(Fallback)?;
        let mut entries: Vec<(Value, Value)> = Vec::new();
        if ks.ty == Ty::String && ks.logical == Logical::None {
            if c != b'{' {
                return Err(Fallback);
            }
            self.i += 1;
            self.ws();
            if self.peek()? == b'}' {
                self.i += 1;
                return Ok(Value::Map(entries));
            }
            loop {
                self.ws();
                if self.peek()? != b'"' {
                    return Err(Fallback);
                }
                let k = self.str_value()?;
                self.expect(b':')?;
                let x = self.typed(vs, depth + 1)?;
                if entries.iter().any(|(e, _)| matches!(e, Value::Str(s) if *s == k)) {
                    return Err(Fallback); // a duplicate key
                }
                entries.push((Value::Str(k), x));
                self.ws();
                match self.peek()? {
                    b',' => self.i += 1,
                    b'}' => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(Fallback),
                }
            }
        } else {
            if c != b'[' || ks.ty == Ty::String {
                return Err(Fallback);
            }
            self.i += 1;
            self.ws();
            if self.peek()? == b']' {
                self.i += 1;
                return Ok(Value::Map(entries));
            }
            loop {
                self.expect(b'[')?;
                let k = self.typed(ks, depth + 1)?;
                self.expect(b',')?;
                let x = self.typed(vs, depth + 1)?;
                self.expect(b']')?;
                if matches!(k, Value::Struct(_) | Value::Array(_) | Value::Map(_) | Value::Bytes(_) | Value::Py(_))
                {
                    return Err(Fallback); // keys Python keeps as pairs: the Python path
                }
                if entries.iter().any(|(e, _)| same_key(e, &k)) {
                    return Err(Fallback);
                }
                entries.push((k, x));
                self.ws();
                match self.peek()? {
                    b',' => self.i += 1,
                    b']' => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(Fallback),
                }
            }
        }
        order_entries(&mut entries, MapKind::Hash);
        Ok(Value::Map(entries))
    }

    fn struct_body(&mut self, s: &SchemaRef, depth: u32) -> R<Value> {
        let n = s.fields.len();
        let mut values: Vec<Value> = Vec::with_capacity(n);
        values.resize_with(n, || Value::Null);
        // which fields were read (the first 128 in a mask, the rest in a list)
        let mut seen: u128 = 0;
        let mut seen_more: Vec<usize> = Vec::new();
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
        } else {
            let mut next = 0usize; // fields usually come in schema order
            loop {
                self.ws();
                if self.peek()? != b'"' {
                    return Err(Fallback);
                }
                let key = self.string()?;
                let idx = if next < n && s.fields[next].name.as_bytes() == key {
                    Some(next)
                } else {
                    s.fields.iter().position(|f| f.name.as_bytes() == key)
                };
                self.expect(b':')?;
                match idx {
                    Some(k) => {
                        let dup = if k < 128 {
                            let bit = 1u128 << k;
                            let d = seen & bit != 0;
                            seen |= bit;
                            d
                        } else {
                            let d = seen_more.contains(&k);
                            seen_more.push(k);
                            d
                        };
                        if dup {
                            return Err(Fallback); // a duplicate field
                        }
                        values[k] = self.typed(&s.fields[k].schema, depth + 1)?;
                        next = k + 1;
                    }
                    None => {
                        // an unknown member is ignored, but it must be valid JSON
                        self.skip_value(depth + 1)?;
                    }
                }
                self.ws();
                match self.peek()? {
                    b',' => self.i += 1,
                    b'}' => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(Fallback),
                }
            }
        }
        for (k, f) in s.fields.iter().enumerate() {
            let read = if k < 128 { seen & (1u128 << k) != 0 } else { seen_more.contains(&k) };
            if !read {
                values[k] = self.null_of(&f.schema)?;
            }
        }
        Ok(Value::Struct(Box::new(StructVal {
            schema: s.clone(),
            values,
        })))
    }
}

/// Whether two map keys of the same schema are equal (Java `equals` on their objects).
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
