//! JsonConverter decoding of one compiled schema: envelope bytes to `SchemaAndValue`s.
//!
//! A strict RFC 8259 reader directed by the schema builds kconnect's values directly (a
//! `Struct` per struct, its values dict, ints, strs...), with no intermediate JSON tree. It
//! accepts only what orjson accepts and reads it to the same values; whatever it is not sure
//! of (a number outside 64 bits, a float where an int is expected, a duplicate field, a lone
//! surrogate, bytes that are not UTF-8, a type mismatch...) makes the record come back as the
//! fallback marker, and the Python path decodes it and raises its errors.
//!
//! The plan comes from `kconnect.converters.json_native.decoder_plan`: null handling and
//! defaults are probed from the Python reference decoder, and every type without a native
//! rule is a `py` node: the JSON value is read generically (as orjson would) and handed to
//! the reference decoder.

use crate::types;
use crate::util::{init_slot, init_slot_steal, new_str, Owned};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

enum Null {
    Required,
    Nil,
    Default(Py<PyAny>),
}

enum Kind {
    Int(i64, i64),
    Float64,
    Float32,
    Bool,
    Str,
    Array(Box<Node>),
    MapStr(Box<Node>),
    Struct(Py<PyAny>, Vec<Field>),
    Py(Py<PyAny>),
}

struct Field {
    utf8: Vec<u8>,
    node: Node,
}

struct Node {
    kind: Kind,
    null: Null,
}

struct Fallback;
type R<T> = Result<T, Fallback>;

fn parse_node(plan: &Bound<'_, PyAny>) -> PyResult<Node> {
    let t = plan.cast::<PyTuple>()?;
    let kind: String = t.get_item(0)?.extract()?;
    let mode: u8 = t.get_item(1)?.extract()?;
    let null = match mode {
        0 => Null::Required,
        1 => Null::Nil,
        2 => Null::Default(t.get_item(2)?.unbind()),
        _ => return Err(PyValueError::new_err("bad null mode")),
    };
    let kind = match kind.as_str() {
        "int" => Kind::Int(t.get_item(3)?.extract()?, t.get_item(4)?.extract()?),
        "float64" => Kind::Float64,
        "float32" => Kind::Float32,
        "bool" => Kind::Bool,
        "str" => Kind::Str,
        "array" => Kind::Array(Box::new(parse_node(&t.get_item(3)?)?)),
        "map_str" => Kind::MapStr(Box::new(parse_node(&t.get_item(3)?)?)),
        "struct" => {
            let schema = t.get_item(3)?.unbind();
            let mut fields = Vec::new();
            for f in t.get_item(4)?.try_iter()? {
                let f = f?;
                let ft = f.cast::<PyTuple>()?;
                let name: String = ft.get_item(0)?.extract()?;
                fields.push(Field {
                    utf8: name.into_bytes(),
                    node: parse_node(&ft.get_item(1)?)?,
                });
            }
            Kind::Struct(schema, fields)
        }
        "py" => Kind::Py(t.get_item(3)?.unbind()),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown decoder node {other}"
            )))
        }
    };
    Ok(Node { kind, null })
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
    /// scratch for strings with escapes
    tmp: Vec<u8>,
    /// short strings of this batch already made (see StrCache)
    strs: StrCache,
}

/// Short ASCII strings seen in the current batch: a value repeated across records ("apple",
/// a status code, a currency) is one str object shared by all of them, as CPython shares
/// interned strings -- strs are immutable, so sharing is not observable but saves an
/// allocation and a deallocation per value. Dropped at the end of each batch.
struct StrCache {
    slots: Vec<Option<Owned>>,
}

const STR_CACHE_SLOTS: usize = 1024;
const STR_CACHE_MAX_LEN: usize = 32;

impl StrCache {
    fn new() -> Self {
        let mut slots = Vec::with_capacity(STR_CACHE_SLOTS);
        slots.resize_with(STR_CACHE_SLOTS, || None);
        StrCache { slots }
    }

    #[inline]
    unsafe fn get(&mut self, s: &[u8]) -> Option<Owned> {
        // FNV-1a over at most 32 bytes
        let mut h: u64 = 0xcbf29ce484222325;
        for &b in s {
            h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        }
        let slot = &mut self.slots[(h as usize) & (STR_CACHE_SLOTS - 1)];
        if let Some(o) = slot {
            if ffi::PyUnicode_GET_LENGTH(o.0) as usize == s.len() {
                let data =
                    std::slice::from_raw_parts(ffi::PyUnicode_DATA(o.0) as *const u8, s.len());
                if data == s {
                    return Some(Owned::borrowed(o.0));
                }
            }
        }
        let fresh = new_str(s, true)?;
        *slot = Some(Owned::borrowed(fresh.0));
        Some(fresh)
    }
}

enum Num {
    Int(i64),
    Float(f64),
}

impl<'a> Reader<'a> {
    #[inline]
    fn ws(&mut self) {
        while self.i < self.b.len() {
            match self.b[self.i] {
                b' ' | b'\t' | b'\n' | b'\r' => self.i += 1,
                _ => break,
            }
        }
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

    /// A JSON number token. Integers within i64 come back as Int (orjson gives an int);
    /// larger integers, and floats that overflow, are not handled here.
    fn number(&mut self) -> R<Num> {
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
        // the token is ASCII digits and signs only
        let text = unsafe { std::str::from_utf8_unchecked(&b[start..i]) };
        if is_float {
            // At most 17 significant digits (what Jackson, Python and orjson write): a correctly
            // rounded parse is then unambiguous; longer spellings are left to orjson.
            let digits = text
                .bytes()
                .take_while(|c| *c != b'e' && *c != b'E')
                .filter(|c| c.is_ascii_digit())
                .skip_while(|c| *c == b'0')
                .count();
            if digits > 17 {
                return Err(Fallback);
            }
            let f: f64 = text.parse().map_err(|_| Fallback)?;
            if !f.is_finite() {
                return Err(Fallback);
            }
            Ok(Num::Float(f))
        } else {
            text.parse::<i64>().map(Num::Int).map_err(|_| Fallback)
        }
    }

    /// The raw contents of a string token (after the opening quote) decoded to UTF-8 bytes in
    /// `out` or borrowed; returns (bytes, all ASCII).
    fn string(&mut self) -> R<(&[u8], bool)> {
        // caller checked the opening quote
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
                return Ok((s, ascii));
            }
            if c == b'\\' {
                return self.escaped_string(start, i, ascii);
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

    fn escaped_string(
        &mut self,
        start: usize,
        first_escape: usize,
        ascii0: bool,
    ) -> R<(&[u8], bool)> {
        let b = self.b;
        let mut out = std::mem::take(&mut self.tmp);
        out.clear();
        let mut ascii = ascii0;
        let mut raw_from = start;
        let mut i = first_escape;
        loop {
            if i >= b.len() {
                self.tmp = out;
                return Err(Fallback);
            }
            let c = b[i];
            if c == b'"' {
                out.extend_from_slice(&b[raw_from..i]);
                self.i = i + 1;
                break;
            }
            if c < 0x20 {
                self.tmp = out;
                return Err(Fallback);
            }
            if c >= 0x80 {
                ascii = false;
                i += 1;
                continue;
            }
            if c != b'\\' {
                i += 1;
                continue;
            }
            out.extend_from_slice(&b[raw_from..i]);
            let e = match b.get(i + 1) {
                Some(&e) => e,
                None => {
                    self.tmp = out;
                    return Err(Fallback);
                }
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
                    let mut cp = match self.hex4(i) {
                        Ok(v) => v,
                        Err(f) => {
                            self.tmp = out;
                            return Err(f);
                        }
                    };
                    i += 4;
                    if (0xDC00..0xE000).contains(&cp) {
                        self.tmp = out;
                        return Err(Fallback);
                    }
                    if (0xD800..0xDC00).contains(&cp) {
                        // a high surrogate must be followed by an escaped low one
                        if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
                            self.tmp = out;
                            return Err(Fallback);
                        }
                        let lo = match self.hex4(i + 2) {
                            Ok(v) => v,
                            Err(f) => {
                                self.tmp = out;
                                return Err(f);
                            }
                        };
                        if !(0xDC00..0xE000).contains(&lo) {
                            self.tmp = out;
                            return Err(Fallback);
                        }
                        i += 6;
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    }
                    if cp >= 0x80 {
                        ascii = false;
                    }
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(
                        char::from_u32(cp).unwrap().encode_utf8(&mut tmp).as_bytes(),
                    );
                }
                _ => {
                    self.tmp = out;
                    return Err(Fallback);
                }
            }
            raw_from = i;
        }
        if !ascii && std::str::from_utf8(&out).is_err() {
            self.tmp = out;
            return Err(Fallback);
        }
        self.tmp = out;
        Ok((&self.tmp, ascii))
    }

    fn py_string(&mut self) -> R<Owned> {
        let (s, ascii) = self.string()?;
        // `s` points into the input or into `tmp`, neither of which changes before the next
        // string is read
        let s: &[u8] = unsafe { std::slice::from_raw_parts(s.as_ptr(), s.len()) };
        if ascii && s.len() <= STR_CACHE_MAX_LEN {
            return unsafe { self.strs.get(s) }.ok_or_else(err);
        }
        unsafe { new_str(s, ascii) }.ok_or_else(err)
    }

    /// Any JSON value as orjson reads it (dict, list, str, int, float, bool, None).
    fn generic(&mut self, depth: u32) -> R<Owned> {
        if depth > 200 {
            return Err(Fallback);
        }
        self.ws();
        unsafe {
            match self.peek()? {
                b'n' => {
                    self.lit(b"null")?;
                    Ok(Owned::borrowed(ffi::Py_None()))
                }
                b't' => {
                    self.lit(b"true")?;
                    Ok(Owned::borrowed(ffi::Py_True()))
                }
                b'f' => {
                    self.lit(b"false")?;
                    Ok(Owned::borrowed(ffi::Py_False()))
                }
                b'"' => self.py_string(),
                b'[' => {
                    self.i += 1;
                    let list = Owned::new(ffi::PyList_New(0)).ok_or_else(err)?;
                    self.ws();
                    if self.peek()? == b']' {
                        self.i += 1;
                        return Ok(list);
                    }
                    loop {
                        let x = self.generic(depth + 1)?;
                        if ffi::PyList_Append(list.0, x.0) != 0 {
                            return Err(err());
                        }
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b']' => {
                                self.i += 1;
                                return Ok(list);
                            }
                            _ => return Err(Fallback),
                        }
                    }
                }
                b'{' => {
                    self.i += 1;
                    let dict = Owned::new(ffi::PyDict_New()).ok_or_else(err)?;
                    self.ws();
                    if self.peek()? == b'}' {
                        self.i += 1;
                        return Ok(dict);
                    }
                    loop {
                        self.ws();
                        if self.peek()? != b'"' {
                            return Err(Fallback);
                        }
                        let k = self.py_string()?;
                        self.ws();
                        if self.peek()? != b':' {
                            return Err(Fallback);
                        }
                        self.i += 1;
                        let x = self.generic(depth + 1)?;
                        if ffi::PyDict_SetItem(dict.0, k.0, x.0) != 0 {
                            return Err(err());
                        }
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b'}' => {
                                self.i += 1;
                                return Ok(dict);
                            }
                            _ => return Err(Fallback),
                        }
                    }
                }
                _ => match self.number()? {
                    Num::Int(n) => Owned::new(ffi::PyLong_FromLongLong(n)).ok_or_else(err),
                    Num::Float(f) => Owned::new(ffi::PyFloat_FromDouble(f)).ok_or_else(err),
                },
            }
        }
    }

    fn null_of(&self, node: &Node) -> R<Owned> {
        unsafe {
            match &node.kind {
                Kind::Py(f) => call1(f, ffi::Py_None()),
                _ => match &node.null {
                    Null::Required => Err(Fallback),
                    Null::Nil => Ok(Owned::borrowed(ffi::Py_None())),
                    Null::Default(d) => Ok(Owned::borrowed(d.as_ptr())),
                },
            }
        }
    }

    fn value(&mut self, node: &Node, depth: u32) -> R<Owned> {
        if depth > 200 {
            return Err(Fallback);
        }
        self.ws();
        let c = self.peek()?;
        if let Kind::Py(f) = &node.kind {
            let g = self.generic(depth)?;
            return unsafe { call1(f, g.0) };
        }
        if c == b'n' {
            self.lit(b"null")?;
            return self.null_of(node);
        }
        unsafe {
            match &node.kind {
                Kind::Int(lo, hi) => match self.number()? {
                    Num::Int(n) if n >= *lo && n <= *hi => {
                        Owned::new(ffi::PyLong_FromLongLong(n)).ok_or_else(err)
                    }
                    _ => Err(Fallback),
                },
                Kind::Float64 | Kind::Float32 => {
                    if c != b'-' && !c.is_ascii_digit() {
                        return Err(Fallback);
                    }
                    let f = match self.number()? {
                        Num::Int(n) => n as f64,
                        Num::Float(f) => f,
                    };
                    let f = if matches!(node.kind, Kind::Float32) {
                        f as f32 as f64
                    } else {
                        f
                    };
                    Owned::new(ffi::PyFloat_FromDouble(f)).ok_or_else(err)
                }
                Kind::Bool => {
                    if c == b't' {
                        self.lit(b"true")?;
                        Ok(Owned::borrowed(ffi::Py_True()))
                    } else if c == b'f' {
                        self.lit(b"false")?;
                        Ok(Owned::borrowed(ffi::Py_False()))
                    } else {
                        Err(Fallback)
                    }
                }
                Kind::Str => {
                    if c != b'"' {
                        return Err(Fallback);
                    }
                    self.py_string()
                }
                Kind::Array(item) => {
                    if c != b'[' {
                        return Err(Fallback);
                    }
                    self.i += 1;
                    let list = Owned::new(ffi::PyList_New(0)).ok_or_else(err)?;
                    self.ws();
                    if self.peek()? == b']' {
                        self.i += 1;
                        return Ok(list);
                    }
                    loop {
                        let x = self.value(item, depth + 1)?;
                        if ffi::PyList_Append(list.0, x.0) != 0 {
                            return Err(err());
                        }
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b']' => {
                                self.i += 1;
                                return Ok(list);
                            }
                            _ => return Err(Fallback),
                        }
                    }
                }
                Kind::MapStr(vnode) => {
                    if c != b'{' {
                        return Err(Fallback);
                    }
                    self.i += 1;
                    let dict = Owned::new(ffi::PyDict_New()).ok_or_else(err)?;
                    self.ws();
                    if self.peek()? == b'}' {
                        self.i += 1;
                        return Ok(dict);
                    }
                    loop {
                        self.ws();
                        if self.peek()? != b'"' {
                            return Err(Fallback);
                        }
                        let k = self.py_string()?;
                        self.ws();
                        if self.peek()? != b':' {
                            return Err(Fallback);
                        }
                        self.i += 1;
                        let x = self.value(vnode, depth + 1)?;
                        let before = ffi::PyDict_Size(dict.0);
                        if ffi::PyDict_SetItem(dict.0, k.0, x.0) != 0 {
                            return Err(err());
                        }
                        if ffi::PyDict_Size(dict.0) == before {
                            // a duplicate key: orjson keeps the last value, Python decodes that
                            return Err(Fallback);
                        }
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b'}' => {
                                self.i += 1;
                                return Ok(dict);
                            }
                            _ => return Err(Fallback),
                        }
                    }
                }
                Kind::Struct(schema, fields) => {
                    if c != b'{' {
                        return Err(Fallback);
                    }
                    self.i += 1;
                    self.struct_body(schema, fields, depth)
                }
                Kind::Py(_) => unreachable!(),
            }
        }
    }

    unsafe fn struct_body(&mut self, schema: &Py<PyAny>, fields: &[Field], depth: u32) -> R<Owned> {
        let t = types::get().ok_or(Fallback)?;
        let mut found: smallvec::SmallVec<[Option<Owned>; 12]> = smallvec::SmallVec::new();
        found.resize_with(fields.len(), || None);
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
        } else {
            loop {
                self.ws();
                if self.peek()? != b'"' {
                    return Err(Fallback);
                }
                let (key, _) = self.string()?;
                let idx = fields.iter().position(|f| f.utf8.as_slice() == key);
                self.ws();
                if self.peek()? != b':' {
                    return Err(Fallback);
                }
                self.i += 1;
                match idx {
                    Some(k) => {
                        if found[k].is_some() {
                            return Err(Fallback); // duplicate field
                        }
                        found[k] = Some(self.value(&fields[k].node, depth + 1)?);
                    }
                    None => {
                        // an unknown member is ignored, but it must be valid JSON
                        self.generic(depth + 1)?;
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
        // the values in the schema's field order (the plan's fields are in that order); a
        // list left part-filled by an error is freed safely (its empty items are null)
        let list = Owned::new(ffi::PyList_New(fields.len() as isize)).ok_or_else(err)?;
        for (i, (f, v)) in fields.iter().zip(found).enumerate() {
            let v = match v {
                Some(v) => v,
                None => self.null_of(&f.node)?,
            };
            ffi::PyList_SET_ITEM(list.0, i as isize, v.into_ptr());
        }
        let s = crate::util::alloc(t.struct_tp).ok_or_else(err)?;
        init_slot(s.0, t.struct_schema, schema.as_ptr());
        init_slot_steal(s.0, t.struct_values, list.into_ptr());
        Ok(s)
    }
}

fn err() -> Fallback {
    unsafe { crate::util::clear_error() };
    Fallback
}

unsafe fn call1(f: &Py<PyAny>, arg: *mut ffi::PyObject) -> R<Owned> {
    Owned::new(ffi::PyObject_CallOneArg(f.as_ptr(), arg)).ok_or_else(err)
}

/// The compiled decoder of one schema.
#[pyclass(module = "kconnect_native", frozen)]
pub struct JsonDecoder {
    root: Node,
    schema: Py<PyAny>,
}

#[pymethods]
impl JsonDecoder {
    #[new]
    fn new(schema: Bound<'_, PyAny>, plan: Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(JsonDecoder {
            root: parse_node(&plan)?,
            schema: schema.unbind(),
        })
    }

    /// Decode `values` (a list of bytes): `(out, misses)`; in `out` each value that is
    /// `head + payload + b"}"` gives a `SchemaAndValue(schema, decoded payload)`; every other
    /// value, and any payload outside the fast rules, gives `fallback` (`misses` counts them);
    /// None (a tombstone) gives `null`.
    fn decode_batch<'py>(
        &self,
        py: Python<'py>,
        values: Bound<'py, PyList>,
        head: Bound<'py, PyBytes>,
        fallback: Bound<'py, PyAny>,
        null: Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyList>, usize)> {
        let t =
            types::get().ok_or_else(|| PyValueError::new_err("kconnect_native.init not called"))?;
        let head = head.as_bytes();
        let n = values.len();
        let mut misses = 0usize;
        let mut tmp = Vec::new();
        let mut strs = StrCache::new();
        unsafe {
            let out = Owned::new(ffi::PyList_New(n as isize)).ok_or_else(|| PyErr::fetch(py))?;
            let list = values.as_ptr();
            for i in 0..n {
                let data = ffi::PyList_GET_ITEM(list, i as isize);
                let mut r: Option<Owned> = None;
                if data == ffi::Py_None() {
                    r = Some(Owned::borrowed(null.as_ptr())); // a tombstone: SchemaAndValue.NULL
                } else if ffi::PyBytes_CheckExact(data) != 0 {
                    let p = ffi::PyBytes_AS_STRING(data) as *const u8;
                    let len = ffi::Py_SIZE(data) as usize;
                    let b = std::slice::from_raw_parts(p, len);
                    if len > head.len() && b.starts_with(head) && b[len - 1] == b'}' {
                        let mut rd = Reader {
                            b: &b[head.len()..len - 1],
                            i: 0,
                            tmp: std::mem::take(&mut tmp),
                            strs: std::mem::replace(&mut strs, StrCache { slots: Vec::new() }),
                        };
                        let v = rd.value(&self.root, 0);
                        rd.ws();
                        let at_end = rd.i == rd.b.len();
                        tmp = rd.tmp;
                        strs = rd.strs;
                        if let (Ok(v), true) = (v, at_end) {
                            let sv = Owned::new(((*t.sav_tp)
                                .tp_alloc
                                .unwrap_or(ffi::PyType_GenericAlloc))(
                                t.sav_tp, 2
                            ))
                            .ok_or_else(|| PyErr::fetch(py))?;
                            ffi::Py_INCREF(self.schema.as_ptr());
                            ffi::PyTuple_SET_ITEM(sv.0, 0, self.schema.as_ptr());
                            ffi::PyTuple_SET_ITEM(sv.0, 1, v.into_ptr());
                            r = Some(sv);
                        }
                    }
                }
                let r = match r {
                    Some(r) => r,
                    None => {
                        misses += 1;
                        Owned::borrowed(fallback.as_ptr())
                    }
                };
                ffi::PyList_SET_ITEM(out.0, i as isize, r.into_ptr());
            }
            Ok((
                Bound::from_owned_ptr(py, out.into_ptr())
                    .cast_into::<PyList>()
                    .unwrap(),
                misses,
            ))
        }
    }
}

/// `schemas.enable=false`: each value (bytes) parsed as orjson would, as
/// `SchemaAndValue(None, value)`: `(out, misses)`, with `fallback` for a value that is not
/// bytes or not plainly valid JSON (the Python path then reads it, with Jackson's leniencies
/// and its error messages); None (a tombstone) gives `null`.
#[pyfunction]
pub fn decode_schemaless_batch<'py>(
    py: Python<'py>,
    values: Bound<'py, PyList>,
    fallback: Bound<'py, PyAny>,
    null: Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyList>, usize)> {
    let t = types::get().ok_or_else(|| PyValueError::new_err("kconnect_native.init not called"))?;
    let n = values.len();
    let mut misses = 0usize;
    let mut tmp = Vec::new();
    let mut strs = StrCache::new();
    unsafe {
        let out = Owned::new(ffi::PyList_New(n as isize)).ok_or_else(|| PyErr::fetch(py))?;
        let list = values.as_ptr();
        for i in 0..n {
            let data = ffi::PyList_GET_ITEM(list, i as isize);
            let mut r: Option<Owned> = None;
            if data == ffi::Py_None() {
                r = Some(Owned::borrowed(null.as_ptr())); // a tombstone: SchemaAndValue.NULL
            } else if ffi::PyBytes_CheckExact(data) != 0 {
                let p = ffi::PyBytes_AS_STRING(data) as *const u8;
                let len = ffi::Py_SIZE(data) as usize;
                let b = std::slice::from_raw_parts(p, len);
                let mut rd = Reader {
                    b,
                    i: 0,
                    tmp: std::mem::take(&mut tmp),
                    strs: std::mem::replace(&mut strs, StrCache { slots: Vec::new() }),
                };
                let v = rd.generic(0);
                rd.ws();
                let at_end = rd.i == rd.b.len();
                tmp = rd.tmp;
                strs = rd.strs;
                if let (Ok(v), true) = (v, at_end) {
                    let sv = Owned::new(
                        ((*t.sav_tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc))(t.sav_tp, 2),
                    )
                    .ok_or_else(|| PyErr::fetch(py))?;
                    ffi::Py_INCREF(ffi::Py_None());
                    ffi::PyTuple_SET_ITEM(sv.0, 0, ffi::Py_None());
                    ffi::PyTuple_SET_ITEM(sv.0, 1, v.into_ptr());
                    r = Some(sv);
                }
            }
            let r = match r {
                Some(r) => r,
                None => {
                    misses += 1;
                    Owned::borrowed(fallback.as_ptr())
                }
            };
            ffi::PyList_SET_ITEM(out.0, i as isize, r.into_ptr());
        }
        Ok((
            Bound::from_owned_ptr(py, out.into_ptr())
                .cast_into::<PyList>()
                .unwrap(),
            misses,
        ))
    }
}
