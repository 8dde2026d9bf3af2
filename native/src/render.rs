//! Java's `String.valueOf` of native values: what `FileStreamSinkTask` prints for a value.
//!
//! The rules are those of `kconnect.api.data.java_strings.string_value_of`, which is checked
//! against a JVM: `null`, strings as they are, Java's number texts (`Float.toString` for a
//! `Float`), `BigDecimal.toString`, `java.util.Date.toString` in the process's time zone for
//! the three logical date types, `[a, b]` for lists, `{k=v, k2=v2}` for maps in their order,
//! `Struct{a=1,b=x}` (null fields left out); a `byte[]` prints an identity (`[B@...`) whose
//! digits mean nothing, as in Java. A Python object inside a value (`Value::Py`) is rendered by
//! the Python reference.

use crate::java;
use crate::json::read::{Fallback, R};
use crate::model::value::Value;

/// Append `String.valueOf(v)`.
pub fn push_value(buf: &mut Vec<u8>, v: &Value) -> R<()> {
    match v {
        Value::Null => buf.extend_from_slice(b"null"),
        Value::Bool(b) => buf.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => {
            crate::json::write::push_i64(buf, v.as_integer().unwrap())
        }
        Value::F32(f) => {
            java::push_float(buf, *f);
        }
        Value::F64(f) => {
            java::push_double(buf, *f);
        }
        Value::Str(s) => buf.extend_from_slice(s.as_bytes()),
        Value::Bytes(crate::model::value::Bytes::Buffer(b)) => {
            let n = b.len();
            buf.extend_from_slice(format!("java.nio.HeapByteBuffer[pos=0 lim={n} cap={n}]").as_bytes());
        }
        Value::Bytes(b) => {
            buf.extend_from_slice(b"[B@");
            let id = ((b.as_ptr() as usize) >> 4) & 0x7fff_ffff;
            buf.extend_from_slice(format!("{id:x}").as_bytes());
        }
        Value::Decimal(d) => java::push_big_decimal(buf, d),
        Value::Date(days) => {
            if !java::push_date(buf, *days as i64 * 86_400_000) {
                return Err(Fallback);
            }
        }
        Value::Time(ms) => {
            if !java::push_date(buf, *ms as i64) {
                return Err(Fallback);
            }
        }
        Value::Timestamp(ms) => {
            if !java::push_date(buf, *ms) {
                return Err(Fallback);
            }
        }
        Value::Array(items) => {
            buf.push(b'[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    buf.extend_from_slice(b", ");
                }
                push_value(buf, x)?;
            }
            buf.push(b']');
        }
        Value::Map(entries) => {
            buf.push(b'{');
            for (i, (k, x)) in entries.iter().enumerate() {
                if i > 0 {
                    buf.extend_from_slice(b", ");
                }
                push_value(buf, k)?;
                buf.push(b'=');
                push_value(buf, x)?;
            }
            buf.push(b'}');
        }
        Value::Struct(s) => {
            buf.extend_from_slice(b"Struct{");
            let mut first = true;
            for (f, x) in s.schema.fields.iter().zip(s.values.iter()) {
                if x.is_null() {
                    continue;
                }
                if !first {
                    buf.push(b',');
                }
                first = false;
                buf.extend_from_slice(f.name.as_bytes());
                buf.push(b'=');
                push_value(buf, x)?;
            }
            buf.push(b'}');
        }
        Value::Py(_) => return Err(Fallback),
    }
    Ok(())
}
