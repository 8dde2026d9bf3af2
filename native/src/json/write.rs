//! Native values to JSON text, byte for byte as Kafka's JsonConverter (Jackson) writes them.
//!
//! The rules are the Python reference encoder's (`kconnect.converters.json_values.
//! compile_encoder` with a schema, `kconnect.jackson.plain_json_value` without one): struct
//! fields in schema order, nulls replaced by the default when `replace.null.with.default`,
//! bytes and BASE64 decimals as base64, numbers in Java's `toString` forms, non-finite floats
//! as quoted names, maps with string keys as objects and others as `[[key, value], ...]`,
//! Jackson's escapes. Whatever the reference would refuse or that is not plainly covered (a
//! `Py` value, a value of another type than its schema's, a decimal whose scale is not its schema's)
//! is `Fallback`: the Python path encodes the record or raises its own error.

use crate::java;
use crate::json::read::{Fallback, R};
use crate::model::schema::{Logical, NSchema, SchemaRef, Ty};
use crate::model::value::Value;

const HEX: &[u8; 16] = b"0123456789ABCDEF";

pub struct Writer {
    pub out: Vec<u8>,
    pub decimal_numeric: bool,
    pub rnwd: bool,
}

#[inline]
pub fn push_i64(buf: &mut Vec<u8>, v: i64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    let neg = v < 0;
    let mut n = v.unsigned_abs();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if neg {
        buf.push(b'-');
    }
    buf.extend_from_slice(&tmp[i..]);
}

#[inline]
fn push_u_escape(buf: &mut Vec<u8>, cp: u32) {
    buf.extend_from_slice(b"\\u");
    buf.push(HEX[((cp >> 12) & 0xF) as usize]);
    buf.push(HEX[((cp >> 8) & 0xF) as usize]);
    buf.push(HEX[((cp >> 4) & 0xF) as usize]);
    buf.push(HEX[(cp & 0xF) as usize]);
}

/// Append `s` as a JSON string with Jackson's escapes: the short forms for `"` `\` and
/// `\b \f \n \r \t`, upper-case `\u00XX` for other controls, characters outside the BMP as
/// escaped surrogate pairs, everything else as UTF-8.
pub fn push_json_str(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    let b = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c < 0x20 || c == b'"' || c == b'\\' {
            buf.extend_from_slice(&b[start..i]);
            match c {
                b'"' => buf.extend_from_slice(b"\\\""),
                b'\\' => buf.extend_from_slice(b"\\\\"),
                b'\n' => buf.extend_from_slice(b"\\n"),
                b'\r' => buf.extend_from_slice(b"\\r"),
                b'\t' => buf.extend_from_slice(b"\\t"),
                0x08 => buf.extend_from_slice(b"\\b"),
                0x0c => buf.extend_from_slice(b"\\f"),
                _ => push_u_escape(buf, c as u32),
            }
            i += 1;
            start = i;
        } else if c >= 0xF0 {
            // a 4-byte sequence: a character outside the BMP
            buf.extend_from_slice(&b[start..i]);
            let ch = s[i..].chars().next().unwrap() as u32 - 0x10000;
            push_u_escape(buf, 0xD800 + (ch >> 10));
            push_u_escape(buf, 0xDC00 + (ch & 0x3FF));
            i += 4;
            start = i;
        } else {
            i += 1;
        }
    }
    buf.extend_from_slice(&b[start..]);
    buf.push(b'"');
}

/// `BigInteger.toByteArray`: the fewest big-endian two's complement bytes holding `v`.
pub fn twos_complement(v: i128) -> Vec<u8> {
    let all = v.to_be_bytes();
    let mut i = 0;
    while i < 15 {
        let (b, next) = (all[i], all[i + 1]);
        if (b == 0 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0) {
            i += 1;
        } else {
            break;
        }
    }
    all[i..].to_vec()
}

impl Writer {
    /// Jackson's double: Java's text, non-finite values as quoted names.
    fn double(&mut self, v: f64) {
        if v.is_finite() {
            java::push_double(&mut self.out, v);
        } else {
            self.out.push(b'"');
            java::push_double(&mut self.out, v);
            self.out.push(b'"');
        }
    }

    fn float(&mut self, v: f32) {
        if v.is_finite() {
            java::push_float(&mut self.out, v);
        } else {
            self.out.push(b'"');
            java::push_float(&mut self.out, v);
            self.out.push(b'"');
        }
    }

    /// A value of schema `s`.
    pub fn typed(&mut self, s: &SchemaRef, v: &Value) -> R<()> {
        if v.is_null() {
            if self.rnwd {
                if let Some(d) = s.default_value() {
                    if !d.is_null() {
                        return self.typed(s, d);
                    }
                }
            }
            if s.optional {
                self.out.extend_from_slice(b"null");
                return Ok(());
            }
            return Err(Fallback);
        }
        if s.misnamed {
            return Err(Fallback);
        }
        match s.logical {
            Logical::None => {}
            Logical::Decimal(scale) => {
                let Value::Decimal(d) = v else {
                    return Err(Fallback);
                };
                if self.decimal_numeric {
                    java::push_big_decimal(&mut self.out, d);
                } else {
                    // Decimal.fromLogical refuses a value whose scale is not the schema's
                    // ("mismatching scale"): Python raises the same error.
                    if Some(d.scale) != scale {
                        return Err(Fallback);
                    }
                    self.out.push(b'"');
                    java::base64::encode_into(&mut self.out, &twos_complement(d.unscaled));
                    self.out.push(b'"');
                }
                return Ok(());
            }
            Logical::Date => {
                let Value::Date(days) = v else {
                    return Err(Fallback);
                };
                push_i64(&mut self.out, *days as i64);
                return Ok(());
            }
            Logical::Time => {
                let Value::Time(ms) = v else {
                    return Err(Fallback);
                };
                push_i64(&mut self.out, *ms as i64);
                return Ok(());
            }
            Logical::Timestamp => {
                let Value::Timestamp(ms) = v else {
                    return Err(Fallback);
                };
                push_i64(&mut self.out, *ms);
                return Ok(());
            }
        }
        match s.ty {
            Ty::Int8 | Ty::Int16 | Ty::Int32 | Ty::Int64 => {
                let n = v.as_integer().ok_or(Fallback)?;
                let (lo, hi) = s.ty.int_range().unwrap();
                if n < lo || n > hi {
                    return Err(Fallback);
                }
                push_i64(&mut self.out, n);
                Ok(())
            }
            Ty::Float64 | Ty::Float32 => {
                let f = match v {
                    Value::F64(f) => *f,
                    Value::F32(f) => *f as f64,
                    _ => v.as_integer().ok_or(Fallback)? as f64,
                };
                if s.ty == Ty::Float32 {
                    self.float(f as f32);
                } else {
                    self.double(f);
                }
                Ok(())
            }
            Ty::Boolean => {
                let Value::Bool(b) = v else {
                    return Err(Fallback);
                };
                self.out.extend_from_slice(if *b { b"true" } else { b"false" });
                Ok(())
            }
            Ty::String => {
                let Value::Str(x) = v else {
                    return Err(Fallback);
                };
                push_json_str(&mut self.out, x);
                Ok(())
            }
            Ty::Bytes => {
                let Value::Bytes(b) = v else {
                    return Err(Fallback);
                };
                self.out.push(b'"');
                java::base64::encode_into(&mut self.out, b);
                self.out.push(b'"');
                Ok(())
            }
            Ty::Array => {
                let Value::Array(items) = v else {
                    return Err(Fallback);
                };
                let item = s.value.as_ref().ok_or(Fallback)?;
                self.out.push(b'[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.typed(item, x)?;
                }
                self.out.push(b']');
                Ok(())
            }
            Ty::Map => {
                let Value::Map(entries) = v else {
                    return Err(Fallback);
                };
                let ks = s.key.as_ref().ok_or(Fallback)?;
                let vs = s.value.as_ref().ok_or(Fallback)?;
                if ks.ty == Ty::String && ks.logical == Logical::None {
                    self.out.push(b'{');
                    for (i, (k, x)) in entries.iter().enumerate() {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        match k {
                            Value::Str(k) => push_json_str(&mut self.out, k),
                            // the reference writes a null key as "null" (after the default)
                            _ => return Err(Fallback),
                        }
                        self.out.push(b':');
                        self.typed(vs, x)?;
                    }
                    self.out.push(b'}');
                } else {
                    self.out.push(b'[');
                    for (i, (k, x)) in entries.iter().enumerate() {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        self.out.push(b'[');
                        self.typed(ks, k)?;
                        self.out.push(b',');
                        self.typed(vs, x)?;
                        self.out.push(b']');
                    }
                    self.out.push(b']');
                }
                Ok(())
            }
            Ty::Struct => {
                let Value::Struct(sv) = v else {
                    return Err(Fallback);
                };
                if !std::ptr::eq(&*sv.schema as *const NSchema, &**s as *const NSchema)
                    && sv.schema.py.as_ptr() != s.py.as_ptr()
                {
                    return Err(Fallback); // the reference compares the schemas (or refuses)
                }
                self.out.push(b'{');
                for (i, (f, x)) in s.fields.iter().zip(sv.values.iter()).enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    push_json_str(&mut self.out, &f.name);
                    self.out.push(b':');
                    self.typed(&f.schema, x)?;
                }
                self.out.push(b'}');
                Ok(())
            }
        }
    }

    /// A schemaless value (`plain_json_value`).
    pub fn any(&mut self, v: &Value) -> R<()> {
        match v {
            Value::Null => self.out.extend_from_slice(b"null"),
            Value::Bool(b) => self.out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => {
                push_i64(&mut self.out, v.as_integer().unwrap())
            }
            Value::F64(f) => self.double(*f),
            // a Float without a schema: Jackson writes Float.toString
            Value::F32(f) => self.float(*f),
            Value::Str(s) => push_json_str(&mut self.out, s),
            Value::Bytes(b) => {
                self.out.push(b'"');
                java::base64::encode_into(&mut self.out, b);
                self.out.push(b'"');
            }
            Value::Array(items) => {
                self.out.push(b'[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.any(x)?;
                }
                self.out.push(b']');
            }
            Value::Map(entries) => {
                if entries.iter().all(|(k, _)| matches!(k, Value::Str(_))) {
                    self.out.push(b'{');
                    for (i, (k, x)) in entries.iter().enumerate() {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        let Value::Str(k) = k else { unreachable!() };
                        push_json_str(&mut self.out, k);
                        self.out.push(b':');
                        self.any(x)?;
                    }
                    self.out.push(b'}');
                } else {
                    self.out.push(b'[');
                    for (i, (k, x)) in entries.iter().enumerate() {
                        if i > 0 {
                            self.out.push(b',');
                        }
                        self.out.push(b'[');
                        self.any(k)?;
                        self.out.push(b',');
                        self.any(x)?;
                        self.out.push(b']');
                    }
                    self.out.push(b']');
                }
            }
            // no JSON form without a schema: the Python path raises its error
            Value::Decimal(_)
            | Value::Date(_)
            | Value::Time(_)
            | Value::Timestamp(_)
            | Value::Struct(_)
            | Value::Py(_) => return Err(Fallback),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twos() {
        assert_eq!(twos_complement(0), vec![0]);
        assert_eq!(twos_complement(127), vec![0x7f]);
        assert_eq!(twos_complement(128), vec![0, 0x80]);
        assert_eq!(twos_complement(-1), vec![0xff]);
        assert_eq!(twos_complement(-128), vec![0x80]);
        assert_eq!(twos_complement(-129), vec![0xff, 0x7f]);
    }

    #[test]
    fn strings() {
        let mut b = Vec::new();
        push_json_str(&mut b, "a\"\\\n\u{1}é😀");
        assert_eq!(String::from_utf8(b).unwrap(), "\"a\\\"\\\\\\n\\u0001é\\uD83D\\uDE00\"");
    }
}
