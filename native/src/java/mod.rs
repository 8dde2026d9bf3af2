//! Java's texts and hashes, as the native record path needs them.
//!
//! The pure-Python reference (`kconnect.api.data.java_numbers`, `java_strings`) is checked
//! against a JVM; these functions give the same results.

pub mod base64;
pub mod hash;

use crate::model::value::Dec;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// `Double.toString(v)` as JDK 17 prints it.
pub fn push_double(py: Python<'_>, buf: &mut Vec<u8>, v: f64) -> bool {
    static F: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    push_py_text(py, &F, "kconnect.api.data.java_numbers", "java_double_to_string", buf, v)
}

/// `Float.toString(v)` as JDK 17 prints it.
pub fn push_float(py: Python<'_>, buf: &mut Vec<u8>, v: f32) -> bool {
    static F: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    push_py_text(py, &F, "kconnect.api.data.java_numbers", "java_float_to_string", buf, v as f64)
}

/// `new java.util.Date(ms).toString()` in the process's time zone.
pub fn push_date(py: Python<'_>, buf: &mut Vec<u8>, ms: i64) -> bool {
    static F: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    push_py_text(py, &F, "kconnect.api.data.java_strings", "java_date_string", buf, ms)
}

fn push_py_text<'py, A>(
    py: Python<'py>,
    cell: &PyOnceLock<Py<PyAny>>,
    module: &str,
    name: &str,
    buf: &mut Vec<u8>,
    arg: A,
) -> bool
where
    A: IntoPyObject<'py>,
{
    let Ok(f) = cell.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import(module)?.getattr(name)?.unbind())
    }) else {
        return false;
    };
    match f.bind(py).call1((arg,)).and_then(|r| r.extract::<String>()) {
        Ok(s) => {
            buf.extend_from_slice(s.as_bytes());
            true
        }
        Err(_) => false,
    }
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
