//! Standard base64 (with padding) as Java's `Base64.getEncoder()` writes it and Python's
//! `base64.b64decode(text, validate=True)` reads it.

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Append the base64 text of `data`.
pub fn encode_into(buf: &mut Vec<u8>, data: &[u8]) {
    let mut chunks = data.chunks_exact(3);
    for c in &mut chunks {
        let n = ((c[0] as u32) << 16) | ((c[1] as u32) << 8) | c[2] as u32;
        buf.push(B64[(n >> 18) as usize & 63]);
        buf.push(B64[(n >> 12) as usize & 63]);
        buf.push(B64[(n >> 6) as usize & 63]);
        buf.push(B64[n as usize & 63]);
    }
    let rest = chunks.remainder();
    if rest.len() == 1 {
        let n = (rest[0] as u32) << 16;
        buf.push(B64[(n >> 18) as usize & 63]);
        buf.push(B64[(n >> 12) as usize & 63]);
        buf.extend_from_slice(b"==");
    } else if rest.len() == 2 {
        let n = ((rest[0] as u32) << 16) | ((rest[1] as u32) << 8);
        buf.push(B64[(n >> 18) as usize & 63]);
        buf.push(B64[(n >> 12) as usize & 63]);
        buf.push(B64[(n >> 6) as usize & 63]);
        buf.push(b'=');
    }
}

#[inline]
fn sextet(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// The bytes of strict base64 `text` (a multiple of 4 characters, padding only at the end);
/// None for anything else (the Python path then reads it and says why).
pub fn decode(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let quads = text.len() / 4;
    for (q, c) in text.chunks_exact(4).enumerate() {
        let last = q + 1 == quads;
        let pad = if last {
            c.iter().rev().take_while(|&&b| b == b'=').count()
        } else {
            0
        };
        if pad > 2 {
            return None;
        }
        let mut n = 0u32;
        for &b in &c[..4 - pad] {
            n = (n << 6) | sextet(b)?;
        }
        n <<= 6 * pad as u32;
        out.push((n >> 16) as u8);
        if pad < 2 {
            out.push((n >> 8) as u8);
        }
        if pad < 1 {
            out.push(n as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for data in [&b""[..], b"f", b"fo", b"foo", b"foob", b"fooba", b"foobar", &[0xff, 0, 0x80]] {
            let mut t = Vec::new();
            encode_into(&mut t, data);
            assert_eq!(decode(&t).as_deref(), Some(data));
        }
        assert_eq!(decode(b"Zm9v"), Some(b"foo".to_vec()));
        assert_eq!(decode(b"Zm9"), None);
        assert_eq!(decode(b"Zm=v"), None);
        assert_eq!(decode(b"Zm9v\n"), None);
    }
}
