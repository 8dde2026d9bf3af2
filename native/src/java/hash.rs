//! Java's `hashCode` of the objects Connect values stand for, and `java.util.HashMap`'s
//! iteration order (bucket of the spread hash under the table's size, then insertion order;
//! bins that Java turns into trees are not modelled, as in the Python reference).

use crate::model::value::{Dec, Value};

/// `String.hashCode` (over UTF-16 code units).
pub fn string_hash(s: &str) -> i32 {
    let mut h: i32 = 0;
    if s.is_ascii() {
        for &b in s.as_bytes() {
            h = h.wrapping_mul(31).wrapping_add(b as i32);
        }
        return h;
    }
    for u in s.encode_utf16() {
        h = h.wrapping_mul(31).wrapping_add(u as i32);
    }
    h
}

#[inline]
fn long_hash(v: i64) -> i32 {
    (v ^ ((v as u64) >> 32) as i64) as i32
}

/// `BigInteger.hashCode` of `v` (31·h + each 32-bit word of the magnitude, big-endian, times
/// the sign).
fn big_integer_hash(v: i128) -> i32 {
    let mag = v.unsigned_abs();
    let mut words = Vec::with_capacity(4);
    let mut m = mag;
    while m != 0 {
        words.push(m as u32);
        m >>= 32;
    }
    let mut h: i32 = 0;
    for w in words.iter().rev() {
        h = h.wrapping_mul(31).wrapping_add(*w as i32);
    }
    if v < 0 {
        h.wrapping_neg()
    } else {
        h
    }
}

fn decimal_hash(d: &Dec) -> i32 {
    big_integer_hash(d.unscaled).wrapping_mul(31).wrapping_add(d.scale)
}

/// Java's `hashCode` of `v`, or None where Java's is an identity hash (`byte[]`, `Struct`, a
/// Python object); a `ByteBuffer`'s is by content.
pub fn hash_code(v: &Value) -> Option<i32> {
    Some(match v {
        Value::Null => 0,
        Value::Bool(b) => {
            if *b {
                1231
            } else {
                1237
            }
        }
        Value::I8(x) => *x as i32,
        Value::I16(x) => *x as i32,
        Value::I32(x) => *x,
        Value::I64(x) => long_hash(*x),
        Value::F32(x) => {
            if x.is_nan() {
                0x7fc0_0000
            } else {
                x.to_bits() as i32
            }
        }
        Value::F64(x) => {
            let bits = if x.is_nan() {
                0x7ff8_0000_0000_0000u64
            } else {
                x.to_bits()
            };
            long_hash(bits as i64)
        }
        Value::Str(s) => string_hash(s),
        Value::Decimal(d) => decimal_hash(d),
        Value::Date(days) => long_hash(*days as i64 * 86_400_000),
        Value::Time(ms) => long_hash(*ms as i64),
        Value::Timestamp(ms) => long_hash(*ms),
        Value::Array(items) => {
            let mut h: i32 = 1;
            for x in items {
                h = h.wrapping_mul(31).wrapping_add(hash_code(x)?);
            }
            h
        }
        Value::Map(entries) => {
            let mut h: i32 = 0;
            for (k, x) in entries {
                h = h.wrapping_add(hash_code(k)? ^ hash_code(x)?);
            }
            h
        }
        Value::Bytes(crate::model::value::Bytes::Buffer(b)) => {
            // ByteBuffer.hashCode: from the last byte to the first, each signed
            let mut h: i32 = 1;
            for &x in b.iter().rev() {
                h = h.wrapping_mul(31).wrapping_add(x as i8 as i32);
            }
            h
        }
        Value::Bytes(_) | Value::Struct(_) | Value::Py(_) => return None,
    })
}

/// How a Java map was made, which decides its table size.
#[derive(Clone, Copy, Debug)]
pub enum MapKind {
    /// `new HashMap<>()`: 16 buckets, doubled past 3/4 full.
    Hash,
    /// `new HashMap<>(n)`: the table sized for `n` up front, doubled past 3/4 full.
    HashWithCapacity(usize),
    /// `new HashMap<>(otherMap)` of a map with this many entries.
    HashCopyOf(usize),
}

fn table_size_for(cap: usize) -> usize {
    cap.max(1).next_power_of_two()
}

/// The table size of a map of `kind` after `size` insertions.
pub fn table_size(kind: MapKind, size: usize) -> usize {
    let mut cap = match kind {
        MapKind::Hash => 16,
        MapKind::HashWithCapacity(n) => table_size_for(n),
        MapKind::HashCopyOf(n) => {
            // putMapEntries on an empty map: threshold = tableSizeFor(n / 0.75 + 1)
            if n == 0 {
                16
            } else {
                table_size_for(((n as f64 / 0.75) + 1.0) as usize)
            }
        }
    };
    while size as f64 > cap as f64 * 0.75 {
        cap *= 2;
    }
    cap
}

/// Put `entries` (inserted in this order into a map of `kind`) into its iteration order;
/// entries whose key has an identity hash keep insertion order for the whole map.
pub fn order_entries(entries: &mut Vec<(Value, Value)>, kind: MapKind) {
    if entries.len() < 2 {
        return;
    }
    let mask = table_size(kind, entries.len()) - 1;
    let mut buckets = Vec::with_capacity(entries.len());
    for (k, _) in entries.iter() {
        match hash_code(k) {
            Some(h) => {
                let h = h as u32;
                buckets.push(((h ^ (h >> 16)) as usize) & mask);
            }
            None => return,
        }
    }
    if buckets.windows(2).all(|w| w[0] <= w[1]) {
        return;
    }
    // a stable sort by bucket keeps each bucket's entries in insertion order, as its chain
    let mut tagged: Vec<(usize, (Value, Value))> = buckets.into_iter().zip(entries.drain(..)).collect();
    tagged.sort_by_key(|t| t.0);
    entries.extend(tagged.into_iter().map(|t| t.1));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes() {
        assert_eq!(string_hash("hello"), 99162322);
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("日本"), 835047);
        assert_eq!(long_hash(-1), 0);
        assert_eq!(hash_code(&Value::Bool(true)), Some(1231));
    }

    #[test]
    fn capacities() {
        assert_eq!(table_size(MapKind::Hash, 12), 16);
        assert_eq!(table_size(MapKind::Hash, 13), 32);
        assert_eq!(table_size(MapKind::HashWithCapacity(3), 3), 4);
        assert_eq!(table_size(MapKind::HashCopyOf(3), 3), 8);
    }
}
