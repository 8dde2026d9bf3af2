//! Java's texts and hashes, as the native record path needs them.
//!
//! The pure-Python reference (`kconnect.api.data.java_numbers`, `java_strings`) is checked
//! against a JVM; these functions give the same results.

pub mod base64;
pub mod date_format;
pub mod floating;
pub mod hash;

use crate::model::value::Dec;

pub use floating::{push_double, push_float};

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Append `new java.util.Date(ms).toString()` in the process's time zone
/// (`EEE MMM dd HH:mm:ss zzz yyyy`), from the C library's local time as the Python reference
/// (`java_strings.java_date_string`) takes it; false when the C library cannot say.
pub fn push_date(buf: &mut Vec<u8>, ms: i64) -> bool {
    let secs = ms.div_euclid(1000) as libc::time_t;
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    if unsafe { libc::localtime_r(&secs, &mut tm) }.is_null() || tm.tm_zone.is_null() {
        return false;
    }
    let zone = unsafe { std::ffi::CStr::from_ptr(tm.tm_zone) };
    let Ok(zone) = zone.to_str() else { return false };
    let (Some(day), Some(month)) = (DAYS.get(tm.tm_wday as usize), MONTHS.get(tm.tm_mon as usize))
    else {
        return false;
    };
    buf.extend_from_slice(
        format!(
            "{day} {month} {:02} {:02}:{:02}:{:02} {zone} {}",
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec,
            tm.tm_year as i64 + 1900
        )
        .as_bytes(),
    );
    true
}

/// `BigDecimal.toString()` of `d`: plain when the exponent is small, else E-notation.
pub fn push_big_decimal(buf: &mut Vec<u8>, d: &Dec) {
    let neg = d.unscaled < 0;
    let digits = d.unscaled.unsigned_abs().to_string();
    let scale = d.scale as i64;
    let adjusted = -scale + (digits.len() as i64 - 1);
    if neg {
        buf.push(b'-');
    }
    if scale >= 0 && adjusted >= -6 {
        if scale == 0 {
            buf.extend_from_slice(digits.as_bytes());
        } else if (digits.len() as i64) > scale {
            let cut = digits.len() - scale as usize;
            buf.extend_from_slice(&digits.as_bytes()[..cut]);
            buf.push(b'.');
            buf.extend_from_slice(&digits.as_bytes()[cut..]);
        } else {
            buf.extend_from_slice(b"0.");
            for _ in 0..(scale as usize - digits.len()) {
                buf.push(b'0');
            }
            buf.extend_from_slice(digits.as_bytes());
        }
    } else {
        buf.push(digits.as_bytes()[0]);
        if digits.len() > 1 {
            buf.push(b'.');
            buf.extend_from_slice(&digits.as_bytes()[1..]);
        }
        buf.push(b'E');
        if adjusted >= 0 {
            buf.push(b'+');
        }
        buf.extend_from_slice(adjusted.to_string().as_bytes());
    }
}

/// `new BigDecimal(text)` of a JSON number token: None beyond 38 digits or an odd exponent.
pub fn parse_big_decimal(text: &[u8]) -> Option<Dec> {
    let mut i = 0;
    let neg = text.first() == Some(&b'-');
    if neg {
        i += 1;
    }
    let mut unscaled: i128 = 0;
    let mut ndigits = 0;
    let mut scale: i64 = 0;
    let mut seen_point = false;
    while i < text.len() {
        let c = text[i];
        if c.is_ascii_digit() {
            if ndigits > 0 || c != b'0' {
                ndigits += 1;
            }
            if ndigits > 38 {
                return None;
            }
            unscaled = unscaled * 10 + (c - b'0') as i128;
            if seen_point {
                scale += 1;
            }
        } else if c == b'.' && !seen_point {
            seen_point = true;
        } else if c == b'e' || c == b'E' {
            let exp: i64 = std::str::from_utf8(&text[i + 1..]).ok()?.parse().ok()?;
            scale -= exp;
            break;
        } else {
            return None;
        }
        i += 1;
    }
    Some(Dec {
        unscaled: if neg { -unscaled } else { unscaled },
        scale: i32::try_from(scale).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(unscaled: i128, scale: i32) -> String {
        let mut b = Vec::new();
        push_big_decimal(&mut b, &Dec { unscaled, scale });
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn big_decimal_to_string() {
        assert_eq!(text(12345, 2), "123.45");
        assert_eq!(text(-12345, 2), "-123.45");
        assert_eq!(text(5, 3), "0.005");
        assert_eq!(text(0, 2), "0.00");
        assert_eq!(text(0, 0), "0");
        assert_eq!(text(15, -2), "1.5E+3");
        assert_eq!(text(1, -3), "1E+3");
        assert_eq!(text(1, 7), "1E-7");
        assert_eq!(text(123, 9), "1.23E-7");
        assert_eq!(text(1, 6), "0.000001");
    }

    #[test]
    fn parses_numbers() {
        assert_eq!(parse_big_decimal(b"12.50"), Some(Dec { unscaled: 1250, scale: 2 }));
        assert_eq!(parse_big_decimal(b"-1.5e3"), Some(Dec { unscaled: -15, scale: -2 }));
        assert_eq!(parse_big_decimal(b"7"), Some(Dec { unscaled: 7, scale: 0 }));
        assert_eq!(parse_big_decimal(b"0.00"), Some(Dec { unscaled: 0, scale: 2 }));
    }
}
